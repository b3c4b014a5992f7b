// A nested `-c` script quoted with escaped quotes: the string's value is what the shell
// reads (`bash -c "claude -p hi"`), not its source text with the backslashes.
const { exec, execSync } = require('child_process');

function doubleQuoted() {
  execSync("bash -c \"claude -p hi\""); // expect: agent-spawn-without-group
}

function singleQuoted() {
  exec('sh -c \'gemini -p hi\''); // expect: agent-spawn-without-group
}

function inTemplate() {
  execSync(`bash -c \"codex exec hi\"`); // expect: agent-spawn-without-group
}

function onlyEchoed() {
  execSync("bash -c \"echo 'claude -p hi'\"");
}

module.exports = { doubleQuoted, singleQuoted, inTemplate, onlyEchoed };
