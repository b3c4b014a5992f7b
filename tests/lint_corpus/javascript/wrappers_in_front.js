// An agent behind a wrapper that keeps its group is still an agent run; a look-up is not.
const { spawn, exec, execSync } = require('child_process');

function background(prompt) {
  return spawn('nohup', ['claude', '-p', prompt], { stdio: 'ignore' }); // expect: agent-spawn-without-group
}

function shellString() {
  exec('nohup codex exec "fix the tests" > codex.log 2>&1 &'); // expect: agent-spawn-without-group
}

function installed() {
  try {
    execSync('command -v claude');
    return true;
  } catch (_) {
    return false;
  }
}

module.exports = { background, shellString, installed };
