// An agent run through a package runner (npx, bunx, pnpm dlx, npm exec) by its npm
// package name is still that agent; any other package is not.
const { spawn, execFile } = require('child_process');

function viaNpx(q) {
  return spawn('npx', ['-y', '@anthropic-ai/claude-code', '-p', q], { stdio: 'inherit' }); // expect: agent-spawn-without-group
}

function viaPnpmDlx(q) {
  return execFile('pnpm', ['dlx', '@openai/codex@latest', 'exec', q]); // expect: agent-spawn-without-group
}

function viaNpmExec(q) {
  return spawn('npm', ['exec', '--package=@google/gemini-cli', '--', 'gemini', '-p', q]); // expect: agent-spawn-without-group
}

function viaNpxInGroup(q) {
  const child = spawn('npx', ['-y', '@anthropic-ai/claude-code', '-p', q], { detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  return new Promise((resolve) => child.on('exit', resolve));
}

function aTool() {
  return spawn('npx', ['-y', 'prettier', '--write', '.']);
}

module.exports = { viaNpx, viaPnpmDlx, viaNpmExec, viaNpxInGroup, aTool };
