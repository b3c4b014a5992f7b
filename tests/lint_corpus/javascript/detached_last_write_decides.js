// Keys are set in order at run time: the last write of `detached` before the spawn, in
// the function's straight-line code, decides. `Object.assign(opts, { detached: false })`
// or `opts.detached = false` after `detached: true` turns the group off again, and so
// does a later key or spread in the literal (`{ detached: true, ...NOGROUP }`). A write
// in a branch that asks for a group may be the one in force, and still counts.
const { spawn } = require('child_process');

const GROUP = { detached: true };
const NOGROUP = { detached: false };

function assignedFalseAfterTrue(q) {
  const opts = { detached: true };
  Object.assign(opts, { detached: false });
  const child = spawn('claude', ['-p', q], opts); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function keyFalseAfterTrue(q) {
  const opts = { detached: true };
  opts.detached = false;
  const child = spawn('codex', ['exec', q], opts); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function spreadAfterTrue(q) {
  const child = spawn('claude', ['-p', q], { detached: true, ...NOGROUP }); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function keyAfterSpread(q) {
  const child = spawn('gemini', ['-p', q], { ...GROUP, detached: false }); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function assignedConstFalse(q) {
  const opts = { detached: true };
  Object.assign(opts, NOGROUP);
  const child = spawn('claude', ['-p', q], opts); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function trueAfterFalse(q) {
  const opts = { detached: false };
  opts.detached = true;
  const child = spawn('claude', ['-p', q], opts);
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function spreadThenTrue(q) {
  const child = spawn('codex', ['exec', q], { ...NOGROUP, detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function falseOnlyOnWindows(q) {
  const opts = { detached: true };
  if (process.platform === 'win32') {
    opts.detached = false;
  }
  const child = spawn('gemini', ['-p', q], opts);
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function trueInABranch(q, unix) {
  const opts = { detached: false };
  if (unix) {
    opts.detached = true;
  }
  const child = spawn('claude', ['-p', q], opts);
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

function branchBeforeTheLastWord(q, unix) {
  const opts = {};
  if (unix) {
    opts.detached = true;
  }
  opts.detached = false;
  const child = spawn('codex', ['exec', q], opts); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 60000);
}

module.exports = {
  assignedFalseAfterTrue, keyFalseAfterTrue, spreadAfterTrue, keyAfterSpread,
  assignedConstFalse, trueAfterFalse, spreadThenTrue, falseOnlyOnWindows, trueInABranch,
  branchBeforeTheLastWord,
};
