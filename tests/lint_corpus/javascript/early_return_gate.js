// A group kill after `if (<the leader has exited>) return;` never runs when the leader
// exits first. A guard on the handle alone is fine.
const { spawn } = require('child_process');

class Worker {
  start(task) {
    this.child = spawn('codex', ['exec', task], { detached: true }); // expect: agent-spawn-without-group
  }

  stop() {
    if (this.child.exitCode !== null) return;
    process.kill(-this.child.pid, 'SIGKILL');
  }
}

class Reviewer {
  start(diff) {
    this.child = spawn('claude', ['-p', diff], { detached: true });
  }

  stop() {
    if (!this.child || this.child.pid === undefined) {
      return;
    }
    process.kill(-this.child.pid, 'SIGKILL');
  }
}

module.exports = { Worker, Reviewer };
