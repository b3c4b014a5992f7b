// A command kept in one constant array and handed on in pieces (`CMD[0]`, then
// `...CMD.slice(1)` or `CMD.slice(1).concat([q])`) is the whole array: past a wrapper at
// its head, the agent.
const { spawn } = require('child_process');

const CMD = ['nohup', 'claude', '-p'];
const TOOL = ['nohup', 'make', '-j4'];

function run(q) {
  return spawn(CMD[0], [...CMD.slice(1), q]); // expect: agent-spawn-without-group
}

function concatenated(q) {
  return spawn(CMD[0], CMD.slice(1).concat([q])); // expect: agent-spawn-without-group
}

function inGroup(q) {
  const child = spawn(CMD[0], [...CMD.slice(1), q], { detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  return new Promise((resolve) => child.on('exit', resolve));
}

function aTool() {
  return spawn(TOOL[0], [...TOOL.slice(1), 'all']);
}

module.exports = { run, concatenated, inGroup, aTool };
