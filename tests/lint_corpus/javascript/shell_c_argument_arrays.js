// A shell's `-c` script (and `env`) in the argument array: the script's program is the one run.
const { spawn, exec, execFile } = require('child_process');

const SCRIPT = 'cd /work && codex exec --full-auto fix';

function bashC() {
  return spawn('bash', ['-c', 'claude -p hi']); // expect: agent-spawn-without-group
}

function bashLc(cb) {
  execFile('/bin/bash', ['-lc', SCRIPT], cb); // expect: agent-spawn-without-group
}

function envProgram(prompt) {
  return spawn('/usr/bin/env', ['gemini', '-p', prompt]); // expect: agent-spawn-without-group
}

function shellLine(cb) {
  exec("bash -lc 'codex exec fix'", cb); // expect: agent-spawn-without-group
}

function shellLineNotAnAgent(cb) {
  exec("bash -lc 'make test'", cb);
}

function bashLcGrouped() {
  const child = spawn('bash', ['-lc', 'claude -p hi'], { detached: true });
  child.on('exit', () => {
    try { process.kill(-child.pid, 'SIGKILL'); } catch {}
  });
  return child;
}

function notAnAgent() {
  return spawn('sh', ['-c', 'make test']);
}

function timeoutSignalsItsGroup() {
  return spawn('bash', ['-c', 'timeout 600 claude -p hi']);
}

module.exports = { bashC, bashLc, envProgram, shellLine, shellLineNotAnAgent, bashLcGrouped, notAnAgent, timeoutSignalsItsGroup };
