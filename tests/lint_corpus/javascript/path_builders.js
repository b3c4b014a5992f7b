// Programs whose path is built by a path function: path.join, path.resolve, `.join(' ')`.
const path = require('path');
const { spawn, exec } = require('child_process');

const BIN_DIR = '/opt/agents/bin';
const CMD = ['claude', '-p', 'hi'];

function pathJoin(prompt) {
  return spawn(path.join(BIN_DIR, 'claude'), ['-p', prompt]); // expect: agent-spawn-without-group
}

function pathResolve(prompt) {
  return spawn(path.resolve(BIN_DIR, 'codex'), ['exec', prompt]); // expect: agent-spawn-without-group
}

function commandLine(cb) {
  return exec(CMD.join(' '), cb); // expect: agent-spawn-without-group
}

function homeTemplate(prompt) {
  return spawn(`${process.env.HOME}/.local/bin/gemini`, ['-p', prompt]); // expect: agent-spawn-without-group
}

function joinedAndKilled(prompt) {
  const child = spawn(path.join(BIN_DIR, 'claude'), ['-p', prompt], { detached: true });
  child.on('exit', () => {
    try { process.kill(-child.pid, 'SIGKILL'); } catch {}
  });
  return child;
}

function joinedNotAnAgent() {
  return spawn(path.join(BIN_DIR, 'node'), ['-v']);
}

function joinedDynamic(tool) {
  return spawn(path.join(BIN_DIR, tool), ['-v']);
}

module.exports = { pathJoin, pathResolve, commandLine, homeTemplate, joinedAndKilled, joinedNotAnAgent, joinedDynamic };
