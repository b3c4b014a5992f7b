// Two runner classes with a stop() each: one class's group kill does not count for the
// other's spawn.
const { spawn } = require('node:child_process');

class GroupRunner {
  start(prompt) {
    this.child = spawn('claude', ['-p', prompt], { detached: true });
    this.child.on('exit', () => this.stop());
  }

  stop() {
    try {
      process.kill(-this.child.pid, 'SIGTERM');
    } catch {}
  }
}

class LeakyRunner {
  start(prompt) {
    this.child = spawn('codex', ['exec', prompt], { detached: true }); // expect: agent-spawn-without-group
    setTimeout(() => this.stop(), 60_000);
  }

  stop() {
    this.child.kill();
  }
}

module.exports = { GroupRunner, LeakyRunner };
