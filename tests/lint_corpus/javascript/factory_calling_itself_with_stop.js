// A class method named `spawn` handing out a detached child, with a group kill offered
// beside it: the API hands the kill out with the child.
const { spawn } = require('child_process');

class ClaudeSpawner {
  spawn(prompt) {
    return spawn('claude', ['-p', prompt], { detached: true });
  }

  stop(child) {
    process.kill(-child.pid, 'SIGKILL');
  }
}

module.exports = ClaudeSpawner;
