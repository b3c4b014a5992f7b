const { spawn } = require('child_process');

function runPipeline(prompt) {
  return spawn(`claude -p ${JSON.stringify(prompt)} | tee claude.log`, { shell: true }); // expect: agent-spawn-without-group
}

function runGrouped(prompt) {
  const child = spawn(`amp -x ${JSON.stringify(prompt)}`, { shell: true, detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGTERM'), 60_000);
  return child;
}

function build() {
  return spawn('npm run build && npm test', { shell: true, stdio: 'inherit' });
}

module.exports = { runPipeline, runGrouped, build };
