// Both halves of the cleanup: `detached: true`, and a kill of the whole group in reach.
const cp = require('node:child_process');
const { spawn: launch, spawnSync } = require('child_process');

async function killedInFinally(prompt) {
  const agent = launch('claude', ['-p', prompt], { detached: true, stdio: 'inherit' });
  try {
    await new Promise((resolve) => agent.on('exit', resolve));
  } finally {
    process.kill(-agent.pid, 'SIGKILL');
  }
}

function killTree(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch (_) {
    // ESRCH: the group is gone
  }
}

function throughHelper(prompt) {
  const proc = cp.spawn('codex', ['exec', prompt], { detached: true });
  proc.on('error', () => killTree(proc));
  proc.on('exit', () => killTree(proc));
}

function leaderOnly(prompt) {
  const c = launch('gemini', ['-p', prompt], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => c.kill('SIGKILL'), 60_000);
  c.on('exit', () => console.log('done'));
}

function gatedOnTheLeader(prompt) {
  const c = cp.spawn('aider', ['--message', prompt], { detached: true }); // expect: agent-spawn-without-group
  c.on('close', () => {
    if (c.exitCode === null) process.kill(-c.pid, 'SIGKILL');
  });
}

function syncInAGroup(prompt) {
  return spawnSync('claude', ['-p', prompt], { detached: true, timeout: 600_000 }); // expect: agent-spawn-without-group
}

function nobodyKills(prompt) {
  const c = launch('goose', ['run', '-t', prompt], { detached: true }); // expect: agent-spawn-without-group
  c.unref();
}

function positivePid(prompt) {
  const c = launch('qwen', ['-p', prompt], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => process.kill(c.pid, 'SIGKILL'), 1000);
}

module.exports = { killedInFinally, throughHelper, leaderOnly, gatedOnTheLeader, syncInAGroup, nobodyKills, positivePid };

const pool = {
  kill(pgid) {
    process.kill(-pgid, 'SIGKILL');
  },
};

function sameNameOtherObject(prompt) {
  // `c.kill()` is the leader's kill, not pool.kill.
  const c = launch('droid', ['exec', prompt], { detached: true }); // expect: agent-spawn-without-group
  setTimeout(() => c.kill(), 1000);
}
