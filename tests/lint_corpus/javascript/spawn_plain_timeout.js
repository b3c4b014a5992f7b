const { spawn } = require('node:child_process');

async function runCodex(prompt, { timeoutMs = 600_000 } = {}) {
  const child = spawn('codex', ['exec', '--json', prompt], { stdio: 'pipe' }); // expect: agent-spawn-without-group
  const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
  const chunks = [];
  for await (const chunk of child.stdout) chunks.push(chunk);
  clearTimeout(timer);
  return Buffer.concat(chunks).toString('utf8');
}

function gitLog() {
  return spawn('git', ['log', '--oneline', '-n', '20']);
}

module.exports = { runCodex, gitLog };
