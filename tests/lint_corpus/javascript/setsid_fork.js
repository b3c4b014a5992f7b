// `setsid --fork`, or `setsid` in a child that already leads a group (`detached: true`),
// forks: the session is a grandchild's, and `process.kill(-child.pid, ...)` reaches
// nothing. Plain `setsid` execs in place: the pid is the session's id.
const { spawn } = require('child_process');

function forked(q) {
  const child = spawn('setsid', ['--fork', 'claude', '-p', q]); // expect: agent-spawn-without-group
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

function forkedDetached(q) {
  const child = spawn('setsid', ['-f', 'codex', 'exec', q], { detached: true }); // expect: agent-spawn-without-group
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

function setsidInAGroupLeader(q) {
  const child = spawn('setsid', ['gemini', '-p', q], { detached: true }); // expect: agent-spawn-without-group
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

function inPlaceGroupKilled(q) {
  const child = spawn('setsid', ['-w', 'claude', '-p', q]);
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

function forkedTool(path) {
  return spawn('setsid', ['--fork', 'gzip', path]);
}

module.exports = { forked, forkedDetached, setsidInAGroupLeader, inPlaceGroupKilled, forkedTool };
