// The module required in place, and a program destructured from a const array.
const { spawn } = require('node:child_process');

const CMD = ['codex', 'exec'];
const AGENT = 'claude';

function inlineRequire(prompt) {
  return require('child_process').exec(`${AGENT} -p "${prompt}"`); // expect: agent-spawn-without-group
}

function inlineRequireLiteral(prompt) {
  return require('node:child_process').execFile('gemini', ['-p', prompt]); // expect: agent-spawn-without-group
}

function destructured(prompt) {
  const [bin, ...rest] = CMD;
  return spawn(bin, [...rest, prompt]); // expect: agent-spawn-without-group
}

function notAnAgent() {
  const [tool] = ['npm', 'test'];
  spawn(tool, ['test']);
  return require('child_process').exec('git status');
}
