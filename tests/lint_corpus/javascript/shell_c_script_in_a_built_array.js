// An `sh -c` script in an argument array built from pieces (spreads, `.concat`,
// `CMD[0]` with `CMD.slice(1)`) is read as in a literal array; a command line headed by
// `fleet run` is read whole, and `fleet run` covers its own command only.
const { spawn, exec, execSync } = require('child_process');

const BASE = ['-c'];
const SCRIPT = 'claude -p hi';
const CMD = ['bash', '-c', 'gemini -p hi'];

function spread() {
  return spawn('bash', [...BASE, SCRIPT]); // expect: agent-spawn-without-group
}

function concatenated() {
  return spawn('bash', BASE.concat([SCRIPT])); // expect: agent-spawn-without-group
}

function sliced() {
  return spawn(CMD[0], CMD.slice(1)); // expect: agent-spawn-without-group
}

function grouped() {
  const child = spawn('bash', [...BASE, SCRIPT], { detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  return child;
}

function noAgent() {
  return spawn('bash', [...BASE, 'make test']);
}

function fleetRunThenAnother() {
  execSync('fleet run -- claude -p a; codex exec b'); // expect: agent-spawn-without-group
}

function fleetRunPiped() {
  exec('fleet run -- claude -p a | gemini -p b'); // expect: agent-spawn-without-group
}

function fleetRunShellOption() {
  spawn('fleet run -- claude -p a && codex exec b', { shell: true }); // expect: agent-spawn-without-group
}

function allUnderFleetRun() {
  execSync('fleet run --timeout 10m -- claude -p a');
  return spawn('fleet', ['run', '--', 'claude', '-p', 'a']);
}
