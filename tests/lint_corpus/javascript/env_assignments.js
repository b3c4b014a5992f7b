// `env NAME=value claude`: the assignments after `env` are stepped over, in an argument
// array as in a command line.
const { spawn } = require('child_process');

function bare(prompt) {
  return spawn('env', ['NO_COLOR=1', 'claude', '-p', prompt]); // expect: agent-spawn-without-group
}

function grouped(prompt) {
  const child = spawn('/usr/bin/env', ['CLAUDE_CODE_ENTRYPOINT=cli', 'claude', '-p', prompt], {
    detached: true,
  });
  const stop = () => process.kill(-child.pid, 'SIGKILL');
  setTimeout(stop, 600000);
  child.on('exit', stop);
  return child;
}

function notAnAgent() {
  return spawn('env', ['LANG=C', 'git', 'status']);
}

module.exports = { bare, grouped, notAnAgent };
