// A child put in a collection of the module (a Set, an array, a Map, an object by key)
// is held by the module's functions that use it: a `killAll()` that kills each group,
// run on exit or exported, is in reach. One that kills only each leader is not a group kill.
const { spawn } = require('child_process');

const children = new Set();
const queue = [];
const byId = new Map();
const byName = {};
const leaders = new Set();
const forgotten = new Set();

function killAll() {
  for (const c of children) {
    try { process.kill(-c.pid, 'SIGKILL'); } catch (e) {}
  }
  for (const c of queue) process.kill(-c.pid, 'SIGKILL');
  for (const c of byId.values()) process.kill(-c.pid, 'SIGKILL');
  for (const c of Object.values(byName)) process.kill(-c.pid, 'SIGKILL');
}

function stopLeaders() {
  for (const c of leaders) c.kill('SIGKILL');
}

process.once('exit', killAll);
process.on('exit', stopLeaders);

function inSet(q) {
  const child = spawn('claude', ['-p', q], { detached: true });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child.pid;
}

function inArray(q) {
  const child = spawn('claude', ['-p', q], { detached: true });
  queue.push(child);
  return child.pid;
}

function inMap(id, q) {
  const child = spawn('codex', ['exec', q], { detached: true });
  byId.set(id, child);
  return child.pid;
}

function byKey(name, q) {
  byName[name] = spawn('gemini', ['-p', q], { detached: true });
}

function killedByLeader(q) {
  const child = spawn('claude', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
  leaders.add(child);
  return child.pid;
}

function nobodyKills(q) {
  const child = spawn('claude', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
  forgotten.add(child);
  return child.pid;
}

module.exports = { inSet, inArray, inMap, byKey, killedByLeader, nobodyKills };
