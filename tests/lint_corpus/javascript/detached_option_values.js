// `detached:` is read for what it holds: a `const` bound to `true`, `!isWindows`, a
// parameter (even one defaulting to `false`) or any other expression asks for a group,
// and so does `opts.detached = true` set key by key; `false`, `0`, `null`, a `const`
// bound to one, or a test that the platform is Windows does not.
const { spawn } = require('child_process');

const DETACHED = true;
const ATTACHED = false;
const isWindows = process.platform === 'win32';

function constantDetached(task) {
  const child = spawn('claude', ['-p', task], { detached: DETACHED });
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function notWindows(task) {
  const child = spawn('claude', ['-p', task], { detached: !isWindows });
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function callerDecides(task, detached) {
  const child = spawn('codex', ['exec', task], { detached });
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function callerMayTurnItOn(task, detached = false) {
  const child = spawn('gemini', ['-p', task], { detached });
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function keyByKey(task) {
  const opts = { stdio: 'inherit' };
  opts.detached = true;
  const child = spawn('codex', ['exec', task], opts);
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function assigned(task) {
  const opts = {};
  Object.assign(opts, { detached: true });
  const child = spawn('gemini', ['-p', task], opts);
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function constantAttached(task) {
  const child = spawn('claude', ['-p', task], { detached: ATTACHED }); // expect: agent-spawn-without-group
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function windowsOnly(task) {
  const child = spawn('claude', ['-p', task], { detached: isWindows }); // expect: agent-spawn-without-group
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function keyByKeyFalse(task) {
  const opts = { stdio: 'inherit' };
  opts.detached = false;
  const child = spawn('codex', ['exec', task], opts); // expect: agent-spawn-without-group
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

function nullDetached(task) {
  const child = spawn('gemini', ['-p', task], { detached: null }); // expect: agent-spawn-without-group
  process.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
}

module.exports = {
  constantDetached, notWindows, callerDecides, callerMayTurnItOn, keyByKey, assigned,
  constantAttached, windowsOnly, keyByKeyFalse, nullDetached,
};
