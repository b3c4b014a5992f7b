// An agent run by a Python package runner by its PyPI package name is still that agent.
const { spawnSync } = require('child_process');

function viaUvx(msg) {
  return spawnSync('uvx', ['aider-chat', '--message', msg]); // expect: agent-spawn-without-group
}

function viaPipx(msg) {
  return spawnSync('pipx', ['run', 'aider-chat', '--message', msg]); // expect: agent-spawn-without-group
}

function aTool() {
  return spawnSync('uvx', ['ruff', 'check', '.']);
}

module.exports = { viaUvx, viaPipx, aTool };
