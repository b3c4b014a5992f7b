// The methods of an object literal share `this` as a class's do: `stop()` killing the
// group of the child `start()` keeps on `this.child` is in reach; a kill of the leader
// alone is not a group kill.
const { spawn } = require('child_process');

const agent = {
  child: null,
  start(q) {
    this.child = spawn('claude', ['-p', q], { detached: true });
  },
  stop() {
    if (this.child) process.kill(-this.child.pid, 'SIGKILL');
  },
};

const leaky = {
  child: null,
  start(q) {
    this.child = spawn('claude', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
  },
  stop() {
    if (this.child) this.child.kill('SIGKILL');
  },
};

module.exports = { agent, leaky };
