// A shell's `-c` script pushed into a local array before the array is spawned.
const { spawn } = require('child_process');

function f3() {
  const a = ['-c'];
  a.push('codex exec hi');
  return spawn('sh', a); // expect: agent-spawn-without-group
}

function flagAndScript(prompt) {
  const argv = [];
  argv.push('-lc', `claude -p ${prompt}`);
  return spawn('bash', argv); // expect: agent-spawn-without-group
}

// Not an agent's script.
function listing() {
  const a = ['-c'];
  a.push('ls -la');
  return spawn('sh', a);
}

// Pushed after the spawn: the child never saw it.
function late() {
  const a = ['-c', 'true'];
  const child = spawn('sh', a);
  a.push('claude -p hi');
  return child;
}

// Compliant: both halves.
function grouped() {
  const a = ['-c'];
  a.push('gemini -p hi');
  const child = spawn('sh', a, { detached: true });
  child.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return child;
}
