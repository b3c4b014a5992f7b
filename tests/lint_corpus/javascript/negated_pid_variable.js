// A group kill through a name bound to the negative pid first.
const { spawn } = require('child_process');

function grouped(prompt) {
  const child = spawn('claude', ['-p', prompt], { detached: true });
  const pgid = -child.pid;
  child.on('exit', () => process.kill(pgid, 'SIGKILL'));
  return new Promise((resolve) => child.on('close', resolve));
}

function leaderOnly(prompt) {
  const child = spawn('codex', ['exec', prompt], { detached: true }); // expect: agent-spawn-without-group
  const pid = child.pid;
  child.on('exit', () => process.kill(pid, 'SIGKILL'));
  return new Promise((resolve) => child.on('close', resolve));
}
