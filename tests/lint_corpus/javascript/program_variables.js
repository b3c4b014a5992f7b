const { spawn } = require('child_process');

const CLAUDE_BIN = process.env.CLAUDE_BIN || 'claude';
const AGENT = 'qwen';

function ask(prompt) {
  return spawn(CLAUDE_BIN, ['-p', prompt]); // expect: agent-spawn-without-group
}

function askQwen(prompt) {
  const args = ['-p', prompt, '--yolo'];
  const child = spawn(AGENT, args, { stdio: ['ignore', 'pipe', 'pipe'] }); // expect: agent-spawn-without-group
  return child;
}

function editor(file) {
  const program = process.env.EDITOR || 'vi';
  return spawn(program, [file], { stdio: 'inherit' });
}

module.exports = { ask, askQwen, editor };
