// A const bound to `.concat(...)` of arrays is the command line it builds: joined for a
// shell string, or its first word and `.slice(1)` for spawn.
const { exec, spawn } = require('child_process');

const CODEX = ['codex'].concat(['exec']);
const WRAPPED = ['env'].concat(['claude', '-p']);
const NOHUP = ['nohup'].concat(['gemini', '-p']);
const ECHOED = ['echo'].concat(['claude', '-p']);
const LISTING = ['ls'].concat(['-l']);

function joined() {
  exec(CODEX.join(' ')); // expect: agent-spawn-without-group
}

function joinedWithMore() {
  exec(CODEX.join(' ') + ' hi'); // expect: agent-spawn-without-group
}

function wrapperFirst() {
  spawn(WRAPPED[0], WRAPPED.slice(1)); // expect: agent-spawn-without-group
}

function nohupFirst() {
  spawn(NOHUP[0], NOHUP.slice(1)); // expect: agent-spawn-without-group
}

function onlyEchoed() {
  exec(ECHOED.join(' '));
  spawn(ECHOED[0], ECHOED.slice(1));
}

function noAgent() {
  spawn(LISTING[0], LISTING.slice(1));
}

module.exports = { joined, joinedWithMore, wrapperFirst, nohupFirst, onlyEchoed, noAgent };
