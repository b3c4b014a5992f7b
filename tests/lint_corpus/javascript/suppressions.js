const { spawn, spawnSync } = require('child_process');

function version() {
  // fleet: allow(agent-spawn-without-group) --version exits at once, no helpers
  return spawnSync('claude', ['--version'], { encoding: 'utf8' }).stdout;
}

function interactive() {
  return spawn('codex', [], { stdio: 'inherit' }); // fleet: allow(agent-spawn-without-group) interactive session in the user's terminal
}

function lazy(prompt) {
  // expect: suppression-without-reason -- fleet: allow(agent-spawn-without-group)
  return spawn('gemini', ['-p', prompt]); // expect: agent-spawn-without-group
}

module.exports = { version, interactive, lazy };
