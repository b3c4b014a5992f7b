// Programs whose path is literal text around a constant: template literals and `+`.
const { spawn, execFile } = require('child_process');

const BIN_DIR = '/usr/local/bin';
const NAME = 'claude';

function templateDir(prompt, cb) {
  execFile(`${BIN_DIR}/claude`, ['-p', prompt], { timeout: 60000 }, cb); // expect: agent-spawn-without-group
}

function templateName(prompt) {
  return spawn(`/usr/local/bin/${NAME}`, ['-p', prompt]); // expect: agent-spawn-without-group
}

function plusDir(prompt) {
  return spawn(BIN_DIR + '/codex', ['exec', prompt]); // expect: agent-spawn-without-group
}

function dynamicDirLiteralAgent(home, prompt) {
  return spawn(`${home}/bin/gemini`, ['-p', prompt]); // expect: agent-spawn-without-group
}

function groupedAndKilled(prompt) {
  const child = spawn(`${BIN_DIR}/claude`, ['-p', prompt], { detached: true });
  child.on('exit', () => {
    try { process.kill(-child.pid, 'SIGKILL'); } catch {}
  });
  return child;
}

function notAnAgent() {
  return spawn(`${BIN_DIR}/node`, ['-v']);
}

function dynamicProgram(tool) {
  return spawn(`${BIN_DIR}/${tool}`, ['-v']);
}

module.exports = { templateDir, templateName, plusDir, dynamicDirLiteralAgent, groupedAndKilled, notAnAgent, dynamicProgram };
