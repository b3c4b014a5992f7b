// An argv whose program is `su` runs its `-c` value as a shell script, the way an argv
// `sh -c` does, the user before or after it; a command that runs no agent is none.
const { spawn } = require('child_process');

function userFirst() {
  return spawn('su', ['agent', '-c', 'codex exec hi']); // expect: agent-spawn-without-group
}

function commandFirst() {
  return spawn('su', ['-c', 'claude -p hi', 'agent']); // expect: agent-spawn-without-group
}

function loginShell() {
  return spawn('/bin/su', ['-', 'agent', '-c', 'cd /repo && gemini -p hi']); // expect: agent-spawn-without-group
}

function inGroup() {
  const child = spawn('su', ['agent', '-c', 'claude -p hi'], { detached: true });
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

function aTool() {
  return spawn('su', ['agent', '-c', 'make test']);
}

module.exports = { userFirst, commandFirst, loginShell, inGroup, aTool };
