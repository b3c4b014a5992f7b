// A variable of the module declared without a value (`let child;`, `var proc;`, each
// of `let a, b;`) holds the child a function later assigns to it, as `let child =
// null;` does: the module's handlers that kill its group end that child. Each variable
// of a multi-declaration is its own holder.
const { spawn } = require('child_process');

let child;
function start(q) {
  child = spawn('claude', ['-p', q], { detached: true });
}

var proc;
function startCodex(q) {
  proc = spawn('codex', ['exec', q], { detached: true });
}

let a, b;
function startA() { a = spawn('claude', ['-p'], { detached: true }); }
function startB() { b = spawn('codex', ['exec'], { detached: true }); } // expect: agent-spawn-without-group

let lonely;
function startLonely(q) {
  lonely = spawn('gemini', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
}

process.on('exit', () => {
  process.kill(-child.pid, 'SIGKILL');
  process.kill(-a.pid, 'SIGKILL');
  b.kill();
  lonely.kill();
});
process.on('SIGINT', function () {
  if (proc) process.kill(-proc.pid, 'SIGINT');
});
module.exports = { start, startCodex, startA, startB, startLonely };
