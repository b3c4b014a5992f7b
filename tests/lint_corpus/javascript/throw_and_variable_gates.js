// A group kill after `if (<the leader has exited>) throw ...` is gated like one after
// `return`, and so is one inside `if (alive)` when `const alive = child.exitCode ===
// null`: neither runs when the leader exits first. A name that asks nothing about the
// leader, or a `throw` on the handle alone, gates nothing.
const { spawn } = require('child_process');

function throwGate(task) {
  const child = spawn('claude', ['-p', task], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => {
    if (child.exitCode !== null) throw new Error('done');
    process.kill(-child.pid, 'SIGKILL');
  }, 5000);
}

function variableGate(task) {
  const child = spawn('codex', ['exec', task], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => {
    const alive = child.exitCode === null;
    if (alive) process.kill(-child.pid, 'SIGKILL');
  }, 5000);
}

function throwOnTheHandle(task) {
  const child = spawn('gemini', ['-p', task], { detached: true });
  if (child.pid === undefined) {
    throw new Error('no pid');
  }
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function unrelatedFlag(task, verbose) {
  const child = spawn('claude', ['-p', task], { detached: true });
  const loud = verbose && task.length > 0;
  process.on('exit', () => {
    if (loud) console.error('killing', child.pid);
    process.kill(-child.pid, 'SIGKILL');
  });
}

module.exports = { throwGate, variableGate, throwOnTheHandle, unrelatedFlag };
