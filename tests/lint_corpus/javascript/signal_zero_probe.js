// Signal 0 only asks whether the group is there: process.kill(-pid, 0) kills nothing.
const { spawn } = require('child_process');

function probedThenLeaderOnly(prompt) {
  const child = spawn('claude', ['-p', prompt], { detached: true }); // expect: agent-spawn-without-group
  child.on('exit', () => {
    process.kill(-child.pid, 0);
    child.kill();
  });
}

function probedThenKilled(prompt) {
  const child = spawn('claude', ['-p', prompt], { detached: true });
  child.on('exit', () => {
    try {
      process.kill(-child.pid, 0);
      process.kill(-child.pid, 'SIGKILL');
    } catch (e) {}
  });
}

module.exports = { probedThenLeaderOnly, probedThenKilled };
