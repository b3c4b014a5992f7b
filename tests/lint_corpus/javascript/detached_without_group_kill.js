const { spawn } = require('child_process');

// detached alone is not enough: only the direct child is ever killed here
function start(prompt) {
  const child = spawn('gemini', ['-p', prompt], { // expect: agent-spawn-without-group
    detached: true,
    stdio: 'inherit',
  });
  setTimeout(() => child.kill('SIGKILL'), 5 * 60 * 1000);
  return child;
}

module.exports = { start };
