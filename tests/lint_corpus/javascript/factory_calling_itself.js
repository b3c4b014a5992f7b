// A call inside the factory's own body (a retry calling itself, or a class method named
// `spawn` calling child_process's spawn) is no caller: with no other caller the factory
// is API for other modules, and a group kill must be offered beside it.
const { spawn } = require('child_process');

function spawnAgent(prompt, attempt = 0) {
  const child = spawn('claude', ['-p', prompt], { detached: true }); // expect: agent-spawn-without-group
  child.on('error', () => { if (attempt < 3) spawnAgent(prompt, attempt + 1); });
  return child;
}

class CodexSpawner {
  spawn(prompt) {
    return spawn('codex', ['exec', prompt], { detached: true }); // expect: agent-spawn-without-group
  }

  killAll() {
    for (const child of this.children) child.kill('SIGTERM');
  }
}

module.exports = { spawnAgent, CodexSpawner };
