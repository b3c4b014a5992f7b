// A wrapper taking a positional argument before the command (taskset's CPU list, chrt's
// priority) or an option with a separate value (`stdbuf -o L`) keeps the agent in the
// caller's group; a wrapper acting on a running process (`taskset -p`) runs nothing.
const { spawn, execFileSync } = require('child_process');

function pinned(q) {
  return spawn('taskset', ['-c', '0', 'claude', '-p', q]); // expect: agent-spawn-without-group
}

function lineBuffered(q) {
  return spawn('stdbuf', ['-o', 'L', 'claude', '-p', q]); // expect: agent-spawn-without-group
}

function realtime(q) {
  return spawn('chrt', ['-f', '10', 'codex', 'exec', q]); // expect: agent-spawn-without-group
}

function pinnedInGroup(q) {
  const child = spawn('taskset', ['0x3', 'claude', '-p', q], { detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  return child;
}

function repin(pid) {
  execFileSync('taskset', ['-p', '0x3', String(pid)]);
}

module.exports = { pinned, lineBuffered, realtime, pinnedInGroup, repin };
