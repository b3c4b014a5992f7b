// A callback registered at module level (an arrow or a function expression, no name of
// its own), or a plain statement of the module, holds the child kept in the module
// variable it uses, as a named handler would. One that kills only the leader, or names
// another module variable, does not end this child's group.
const { spawn } = require('child_process');

const children = [];
const queue = [];
const live = new Set();
let child = null;
let runner = null;
let leaky = null;
let mine = null;
let theirs = null;

function startEach(q) {
  const c = spawn('claude', ['-p', q], { detached: true });
  children.push(c);
  return c.pid;
}

process.on('SIGTERM', () => {
  children.forEach((c) => { try { process.kill(-c.pid, 'SIGTERM'); } catch (_) {} });
  process.exit(0);
});

function startQueued(q) {
  const c = spawn('codex', ['exec', q], { detached: true });
  queue.push(c);
}

process.on('SIGHUP', () => {
  for (const c of queue) { process.kill(-c.pid, 'SIGTERM'); }
});

function startLive(q) {
  const c = spawn('gemini', ['-p', q], { detached: true });
  live.add(c);
  c.on('exit', () => live.delete(c));
}

process.on('exit', function () {
  live.forEach(function (c) { process.kill(-c.pid, 'SIGKILL'); });
});

function startOne(q) {
  child = spawn('claude', ['-p', q], { detached: true });
}

process.on('SIGINT', () => {
  if (child) process.kill(-child.pid, 'SIGINT');
  process.exit(130);
});

function startRunner(q) {
  runner = spawn('codex', ['exec', q], { detached: true });
}

function startLeaky(q) {
  leaky = spawn('claude', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
}

process.on('SIGUSR1', () => { if (leaky) leaky.kill('SIGKILL'); });

function startMine(q) {
  mine = spawn('gemini', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
}

process.on('SIGUSR2', () => { if (theirs) process.kill(-theirs.pid, 'SIGKILL'); });

if (require.main === module) {
  try {
    startRunner(process.argv[2]);
  } finally {
    if (runner) process.kill(-runner.pid, 'SIGKILL');
  }
}

let first = null;
let second = null;

function startFirst(q) {
  first = spawn('claude', ['-p', q], { detached: true });
}

function startSecond(q) {
  second = spawn('codex', ['exec', q], { detached: true }); // expect: agent-spawn-without-group
}

process.on('beforeExit', () => { process.kill(-first.pid, 'SIGTERM'); second.kill(); });

module.exports = {
  startEach, startQueued, startLive, startOne, startLeaky, startMine, startFirst, startSecond,
};
