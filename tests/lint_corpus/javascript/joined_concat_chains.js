// A command line joined from an array built by `.concat` or a spread of constants is
// still the agent it names, run through a shell with no group of its own.
const cp = require('child_process');

const BASE = ['codex', 'exec'];
const CLAUDE = ['claude', '-p'];

function ask(task) {
  const line = BASE.concat(['--json', task]).join(' ');
  return cp.exec(line); // expect: agent-spawn-without-group
}

function review(diff) {
  return cp.exec([...CLAUDE, diff].join(' ')); // expect: agent-spawn-without-group
}

function listFiles(dir) {
  return cp.exec(['ls', '-la'].concat([dir]).join(' '));
}

function reviewInGroup(diff) {
  const child = cp.exec([...CLAUDE, diff].join(' '), { detached: true });
  child.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}

module.exports = { ask, review, listFiles, reviewInGroup };
