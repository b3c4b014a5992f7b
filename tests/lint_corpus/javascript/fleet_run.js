const { spawn, execFileSync } = require('child_process');

// fleet run starts the agent in its own process group and kills the group on timeout
function runAgent(prompt) {
  return spawn('fleet', ['run', '--timeout', '15m', '--', 'claude', '-p', prompt], {
    stdio: 'inherit',
  });
}

function runCodexSync(prompt) {
  return execFileSync('fleet', ['run', '--', 'codex', 'exec', prompt], { encoding: 'utf8' });
}

module.exports = { runAgent, runCodexSync };
