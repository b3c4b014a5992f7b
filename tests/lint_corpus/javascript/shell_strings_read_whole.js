// A command string the shell runs (`exec`, `execSync`, `spawn(..., { shell: true })`) is
// read as a whole shell script, as a `.sh` file is: every command of a list, pipeline,
// subshell or loop, and wrappers chained past the first few words.
const { exec, execSync, spawn } = require('child_process');

function afterCd(cb) {
  exec('cd /repo && codex exec "fix it"', cb); // expect: agent-spawn-without-group
}

function secondCommand(cb) {
  exec('echo start; claude -p hi', cb); // expect: agent-spawn-without-group
}

function piped() {
  return execSync('git diff | gemini -p hi'); // expect: agent-spawn-without-group
}

function shellOption() {
  return spawn('cd /repo && claude -p hi', { shell: true, stdio: 'inherit' }); // expect: agent-spawn-without-group
}

function chainedWrappers(cb) {
  exec('sudo -u agent nice -n 5 claude -p hi', cb); // expect: agent-spawn-without-group
}

function twoValueWrappers(cb) {
  exec('nice -n 5 sudo -u agent codex exec hi', cb); // expect: agent-spawn-without-group
}

function envDefault(cb) {
  exec('"${CLAUDE_BIN:-claude}" -p hi', cb); // expect: agent-spawn-without-group
}

function inALoop(cb) {
  exec('for t in a b; do aider --yes "$t"; done', cb); // expect: agent-spawn-without-group
}

function noAgentRun(cb) {
  exec('make -j8 && echo claude done | tee build.log', cb);
  execSync('cd /repo && command -v claude');
}

function sessionTheScriptKills() {
  return exec('cd /repo && setsid claude -p x & pid=$!; sleep 60; kill -- -$pid');
}

module.exports = { afterCd, secondCommand, piped, shellOption, chainedWrappers, twoValueWrappers, envDefault, inALoop, noAgentRun, sessionTheScriptKills };
