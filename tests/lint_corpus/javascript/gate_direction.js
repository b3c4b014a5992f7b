// A group kill is gated on the leader being alive only in the branch that runs while it
// is alive (`exitCode === null`), or after an exit taken once it has exited. A kill in the
// branch that runs after it exited, or after an exit taken while it is alive, is not gated.
const { spawn } = require('child_process');

function aliveBranch(q) {
  const child = spawn('claude', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => {
    if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  }, 60000);
}

function elseOfExited(q) {
  const child = spawn('codex', ['exec', q], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => {
    if (child.exitCode !== null) {
      console.log('done');
    } else {
      process.kill(-child.pid, 'SIGKILL');
    }
  }, 60000);
}

function exitedThenReturn(q) {
  const child = spawn('gemini', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => {
    if (child.exitCode !== null) return;
    process.kill(-child.pid, 'SIGKILL');
  }, 60000);
}

function exitedBranch(q) {
  const child = spawn('claude', ['-p', q], { detached: true });
  child.on('exit', () => {
    if (child.exitCode !== null) process.kill(-child.pid, 'SIGKILL');
  });
}

function elseOfAlive(q) {
  const child = spawn('claude', ['-p', q], { detached: true });
  child.on('close', () => {
    if (child.exitCode === null) {
      console.log('signalled');
    } else {
      process.kill(-child.pid, 'SIGKILL');
    }
  });
}

function aliveThenReturn(q) {
  const child = spawn('codex', ['exec', q], { detached: true });
  child.on('exit', () => {
    if (child.exitCode === null) return;
    process.kill(-child.pid, 'SIGKILL');
  });
}

module.exports = { aliveBranch, elseOfExited, exitedThenReturn, exitedBranch, elseOfAlive, aliveThenReturn };
