// A static class field read through the class's name (`A.BIN` of `class A { static BIN =
// 'claude' }`), as a `const` object's property is.
const { spawn } = require('child_process');

class A {
  static BIN = 'claude';
  static ARGV = ['codex', 'exec'];
  bin = 'gemini';
  static GIT = 'git';
  run() { return spawn(A.BIN, ['-p']); } // expect: agent-spawn-without-group
}

function review(diff) {
  return spawn(A.ARGV[0], ['exec', diff]); // expect: agent-spawn-without-group
}

// Not the agent: an instance field is no property of the class itself.
function instanceField() {
  return spawn(A.bin, ['-p']);
}

function git() {
  return spawn(A.GIT, ['status']);
}

// Compliant: both halves.
function grouped(prompt) {
  const child = spawn(A.BIN, ['-p', prompt], { detached: true });
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  child.on('exit', () => clearTimeout(timer));
  return child;
}
