// Pid 0 is the caller's own group: a detached child has left it.
const { spawn } = require('child_process');

function killMinusZero(prompt) {
  const child = spawn('claude', ['-p', prompt], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(-0, 'SIGKILL'), 60000);
  return child;
}

function killZero(prompt) {
  const child = spawn('codex', ['exec', prompt], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(0, 'SIGKILL'), 60000);
  return child;
}

function killItsGroup(prompt) {
  const child = spawn('claude', ['-p', prompt], { detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
  return child;
}

module.exports = { killMinusZero, killZero, killItsGroup };
