// A program built from constants in many steps (arrays spread into each other) is still
// the agent it names.
const { spawn } = require('child_process');

const BIN = '/opt/agents';
const AGENT = BIN + '/claude';
const BASE = [AGENT, '-p'];
const WITH_MODEL = [...BASE, '--model', 'sonnet'];
const WITH_FORMAT = [...WITH_MODEL, '--output-format', 'json'];
const WITH_VERBOSE = [...WITH_FORMAT, '--verbose'];
const WITH_TURNS = [...WITH_VERBOSE, '--max-turns', '3'];
const FULL = [...WITH_TURNS, '--no-color'];

function ask(q) {
  const argv = [...FULL, q];
  return spawn(argv[0], argv.slice(1)); // expect: agent-spawn-without-group
}

function askInGroup(q) {
  const argv = [...FULL, q];
  const child = spawn(argv[0], argv.slice(1), { detached: true });
  child.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

module.exports = { ask, askInGroup };
