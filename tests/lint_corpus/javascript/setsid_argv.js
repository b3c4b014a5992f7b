// `setsid` in front of the agent makes the new session `detached: true` would: half the
// cleanup, the group must still be killed.
const { spawn, spawnSync } = require('child_process');

function noKill(q) {
  return spawn('setsid', ['claude', '-p', q]); // expect: agent-spawn-without-group
}

function blocking(q) {
  return spawnSync('setsid', ['-w', 'codex', 'exec', q], { timeout: 600000 }); // expect: agent-spawn-without-group
}

function groupKilled(q) {
  const child = spawn('/usr/bin/setsid', ['gemini', '-p', q]);
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 600000);
  child.on('exit', () => clearTimeout(timer));
  return child;
}

function tool(path) {
  return spawn('setsid', ['gzip', path]);
}

module.exports = { noKill, blocking, groupKilled, tool };
