// Options built by `Object.assign` where they are passed: detached when the last of its
// objects that says `detached` (the target included) says true, as at run time, where a
// later source's key wins. A spread (`{ ...BASE, detached: true }`) is read the same way.
const { spawn } = require('child_process');

const BASE = { stdio: 'pipe' };
const ATTACHED = { detached: false };
const GROUP = { detached: true };

function literalSource(q) {
  const c = spawn('claude', ['-p', q], Object.assign({}, BASE, { detached: true }));
  c.on('exit', () => process.kill(-c.pid, 'SIGKILL'));
}

function constSource(q) {
  const c = spawn('codex', ['exec', q], Object.assign({}, BASE, GROUP));
  c.on('exit', () => process.kill(-c.pid, 'SIGKILL'));
}

function spreadSource(q) {
  const c = spawn('gemini', ['-p', q], { ...BASE, detached: true });
  c.on('exit', () => process.kill(-c.pid, 'SIGKILL'));
}

function laterSourceTurnsItOff(q) {
  const c = spawn('claude', ['-p', q], Object.assign({}, GROUP, ATTACHED)); // expect: agent-spawn-without-group
  c.on('exit', () => process.kill(-c.pid, 'SIGKILL'));
}

function laterSourceTurnsItOn(q) {
  const c = spawn('claude', ['-p', q], Object.assign({ detached: false }, BASE, GROUP));
  c.on('exit', () => process.kill(-c.pid, 'SIGKILL'));
}

function noDetachedAnywhere(q) {
  const c = spawn('codex', ['exec', q], Object.assign({}, BASE, { cwd: '/tmp' })); // expect: agent-spawn-without-group
  c.on('exit', () => c.kill('SIGKILL'));
}

function detachedButNobodyKills(q) {
  spawn('claude', ['-p', q], Object.assign({}, BASE, { detached: true })); // expect: agent-spawn-without-group
}

function builtBeforeTheSpawn(q) {
  const opts = Object.assign({}, BASE, { detached: true });
  const c = spawn('claude', ['-p', q], opts);
  c.on('exit', () => process.kill(-c.pid, 'SIGKILL'));
}

function spreadOfAssign(q) {
  const c = spawn('codex', ['exec', q], { ...Object.assign({}, GROUP) });
  c.on('exit', () => process.kill(-c.pid, 'SIGKILL'));
}
