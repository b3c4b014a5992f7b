// A `bash -c` script is checked as a shell script of its own: one that starts its
// agent in a session and kills that group itself needs no group from the spawn that
// starts the shell. One that never kills the session it starts is still a finding.
const { spawn, exec, execFile } = require('child_process');

function owned() {
  return spawn('bash', ['-c', 'setsid claude -p x & pid=$!; sleep 60; kill -- -$pid']);
}

function ownedWithTrap(cb) {
  execFile('sh', ['-ec', 'setsid codex exec hi & pid=$!; trap "kill -- -$pid" EXIT; wait $pid'], cb);
}

function neverKilled() {
  return spawn('bash', ['-c', 'setsid claude -p x & sleep 60']); // expect: agent-spawn-without-group
}

function leaderOnly() {
  return spawn('bash', ['-c', 'setsid gemini -p x & pid=$!; sleep 60; kill $pid']); // expect: agent-spawn-without-group
}

module.exports = { owned, ownedWithTrap, neverKilled, leaderOnly };

// A command string the shell runs (`exec`, `{ shell: true }`) is a script too.
function execOwned() {
  return exec('setsid claude -p x & pid=$!; sleep 60; kill -- -$pid');
}

function shellOptionOwned() {
  return spawn('setsid codex exec hi & pid=$!; trap "kill -- -$pid" EXIT; wait $pid', { shell: true });
}

function execNeverKilled() {
  return exec('setsid claude -p x & sleep 60'); // expect: agent-spawn-without-group
}

module.exports.more = { execOwned, shellOptionOwned, execNeverKilled };
