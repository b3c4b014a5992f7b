// A program named by a module function that only returns a constant is that constant.
const { spawn, execSync } = require('child_process');

const CODEX = 'codex';

function claudeBin() {
  return 'claude';
}

const codexBin = () => CODEX;

export const geminiBin = function () {
  // the one agent this tool runs
  return 'gemini';
};

function chosenBin() {
  const name = process.env.AGENT_BIN || 'tool';
  return name;
}

function eitherBin(fast) {
  if (fast) {
    return 'claude';
  }
  return 'ruff';
}

export function run(q) {
  spawn(claudeBin(), ['-p', q]); // expect: agent-spawn-without-group
  execSync(`${codexBin()} exec ${q}`); // expect: agent-spawn-without-group
  spawn(geminiBin(), ['-p', q]); // expect: agent-spawn-without-group
  spawn(chosenBin(), [q]);
  return spawn(eitherBin(true), [q]);
}
