// A `-c` script's own variables are followed as a shell script file's are, in an
// argument array and in a command string alike.
const { exec, spawn } = require('child_process');

function variable() {
  return spawn('sh', ['-c', 'A=aider; $A --yes']); // expect: agent-spawn-without-group
}

function inACommandString(cb) {
  exec('A=aider; $A --yes', cb); // expect: agent-spawn-without-group
}

function notAnAgent() {
  return spawn('sh', ['-c', 'A=echo; $A claude']);
}

module.exports = { variable, inACommandString, notAnAgent };
