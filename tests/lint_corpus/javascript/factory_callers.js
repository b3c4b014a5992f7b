// Factories returning a detached child to callers in this module: each caller must
// kill the group. A group kill elsewhere, for another child, does not count.
const { spawn } = require('child_process');

function startClaude(prompt) {
  return spawn('claude', ['-p', prompt], { detached: true, stdio: 'pipe' });
}

async function runClaude(prompt) {
  const child = startClaude(prompt);
  try {
    await new Promise((resolve) => child.on('exit', resolve));
  } finally {
    process.kill(-child.pid, 'SIGKILL');
  }
}

function startCodex(prompt) {
  const child = spawn('codex', ['exec', prompt], { detached: true }); // expect: agent-spawn-without-group
  return child;
}

function runCodex(prompt) {
  const child = startCodex(prompt);
  setTimeout(() => child.kill('SIGKILL'), 600_000);
}

const startGemini = (prompt) => spawn('gemini', ['-p', prompt], { detached: true }); // expect: agent-spawn-without-group

function askGemini(prompt) {
  const child = startGemini(prompt);
  child.stdout.pipe(process.stdout);
}

function killTree(child) {
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch (_) {}
}

const startAider = (files) => spawn('aider', ['--yes', ...files], { detached: true });

function edit(files) {
  const child = startAider(files);
  const timer = setTimeout(() => killTree(child), 900_000);
  child.on('exit', () => clearTimeout(timer));
}

class Pool {
  spawnOne(task) {
    return spawn('goose', ['run', '-t', task], { detached: true });
  }

  start(task) {
    this.child = this.spawnOne(task);
  }

  stop() {
    process.kill(-this.child.pid, 'SIGKILL');
  }
}

module.exports = { runClaude, runCodex, askGemini, edit, Pool };
