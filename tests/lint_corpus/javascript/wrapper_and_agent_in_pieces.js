// A wrapper and the agent it runs in different pieces of the argv (a destructured array,
// a spread of a constant after the wrapper program) is still an agent run.
const { spawn } = require('child_process');

const BASE = ['-u', 'agent', 'codex', 'exec'];
const TOOL = ['-u', 'builder', 'make'];

function destructured(q) {
  const [cmd, ...rest] = ['env', 'NO_COLOR=1', 'claude', '-p', q];
  return spawn(cmd, rest); // expect: agent-spawn-without-group
}

function destructuredInGroup(q) {
  const [cmd, ...rest] = ['env', 'NO_COLOR=1', 'claude', '-p', q];
  const child = spawn(cmd, rest, { detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  return new Promise((resolve) => child.on('exit', resolve));
}

function spreadAfterWrapper(q) {
  return spawn('sudo', [...BASE, q]); // expect: agent-spawn-without-group
}

function spreadAfterWrapperInGroup(q) {
  const child = spawn('sudo', [...BASE, q], { detached: true });
  setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  return new Promise((resolve) => child.on('exit', resolve));
}

function spreadOfATool() {
  return spawn('sudo', [...TOOL, 'all']);
}

module.exports = { destructured, destructuredInGroup, spreadAfterWrapper, spreadAfterWrapperInGroup, spreadOfATool };
