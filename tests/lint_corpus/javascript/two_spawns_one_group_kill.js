// Each spawn needs its own group kill: `process.kill(-a.pid, ...)` ends `a`'s group,
// not `b`'s, in the function that starts both (a pid taken from `a` too), and
// `this.a`'s in every method of the class. A kill that names neither child (a loop
// over both, a helper's parameter) counts for each of them.
const { spawn } = require('child_process');

function twoAgentsOneKilled(task) {
  const a = spawn('claude', ['-p', task], { detached: true });
  const b = spawn('codex', ['exec', task], { detached: true }); // expect: agent-spawn-without-group
  process.on('exit', () => {
    process.kill(-a.pid, 'SIGKILL');
    b.kill('SIGKILL');
  });
}

function pidOfTheOther(task) {
  const first = spawn('claude', ['-p', task], { detached: true });
  const second = spawn('gemini', ['-p', task], { detached: true }); // expect: agent-spawn-without-group
  const pid = first.pid;
  second.on('exit', () => process.kill(-pid, 'SIGKILL'));
}

class Pair {
  start(task) {
    this.writer = spawn('claude', ['-p', task], { detached: true });
    this.reviewer = spawn('codex', ['exec', task], { detached: true }); // expect: agent-spawn-without-group
  }

  stop() {
    process.kill(-this.writer.pid, 'SIGKILL');
    this.reviewer.kill();
  }
}

function bothKilled(task) {
  const a = spawn('claude', ['-p', task], { detached: true });
  const b = spawn('codex', ['exec', task], { detached: true });
  process.on('exit', () => {
    process.kill(-a.pid, 'SIGKILL');
    process.kill(-b.pid, 'SIGKILL');
  });
}

function killedInALoop(task) {
  const a = spawn('claude', ['-p', task], { detached: true });
  const b = spawn('gemini', ['-p', task], { detached: true });
  process.on('exit', () => {
    for (const child of [a, b]) process.kill(-child.pid, 'SIGKILL');
  });
}

function killTree(child) {
  process.kill(-child.pid, 'SIGKILL');
}

function killedByAHelper(task) {
  const a = spawn('claude', ['-p', task], { detached: true });
  const b = spawn('codex', ['exec', task], { detached: true });
  process.on('exit', () => {
    killTree(a);
    killTree(b);
  });
}

module.exports = { twoAgentsOneKilled, pidOfTheOther, Pair, bothKilled, killedInALoop, killedByAHelper };
