const cp = require('child_process');
const { spawn: run, execFile } = require('node:child_process');
const util = require('util');

const execFileAsync = util.promisify(execFile);

function goose(task) {
  return cp.spawn('goose', ['run', '-t', task], { stdio: 'inherit' }); // expect: agent-spawn-without-group
}

function aider(files) {
  return run('aider', ['--yes', ...files]); // expect: agent-spawn-without-group
}

async function opencodeVersion() {
  const { stdout } = await execFileAsync('opencode', ['--version']); // expect: agent-spawn-without-group
  return stdout.trim();
}

function npmInstall() {
  return cp.spawnSync('npm', ['ci'], { stdio: 'inherit' });
}

module.exports = { goose, aider, opencodeVersion, npmInstall };
