// A name destructured from a module object of constants holds that property's value.
const { spawn } = require('child_process');

const BINS = { CLAUDE: 'claude', codex: 'codex', lint: 'eslint' };
const { CLAUDE } = BINS;
const { codex: bin, lint } = BINS;

function go(q) {
  spawn(CLAUDE, ['-p', q]); // expect: agent-spawn-without-group
  spawn(bin, ['exec', q]); // expect: agent-spawn-without-group
  return spawn(lint, ['.']);
}

function detachedAndKilled(q) {
  const child = spawn(CLAUDE, ['-p', q], { detached: true });
  child.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

module.exports = { go, detachedAndKilled };
