// An `if (<the leader has exited>) return;` BEFORE the spawn asks about an earlier
// child (an "already running" guard): the group kill after the spawn still runs. The
// same `if` between the spawn and the kill gates the kill on the leader.
const { spawn } = require('child_process');

class Agent {
  run(q) {
    if (this.child && this.child.exitCode === null) return;
    this.child = spawn('claude', ['-p', q], { detached: true });
    this.child.on('exit', () => process.kill(-this.child.pid, 'SIGKILL'));
  }
}

function runGated(q) {
  const child = spawn('codex', ['exec', q], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => {
    if (child.exitCode !== null) return;
    process.kill(-child.pid, 'SIGKILL');
  }, 600000);
  return child;
}

module.exports = { Agent, runGated };
