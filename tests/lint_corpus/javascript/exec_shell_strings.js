const { exec, execSync } = require('child_process');

function summarise(file, cb) {
  exec(`claude -p "summarise ${file}" --output-format text`, { timeout: 120000 }, cb); // expect: agent-spawn-without-group
}

function branch() {
  return execSync('git rev-parse --abbrev-ref HEAD').toString().trim();
}

function countRuns() {
  // mentions claude only as a grep pattern: not a spawn of claude
  return execSync('ls logs | grep claude | wc -l').toString().trim();
}

function quick(prompt) {
  return execSync('codex exec ' + JSON.stringify(prompt), { encoding: 'utf8' }); // expect: agent-spawn-without-group
}

module.exports = { summarise, branch, countRuns, quick };
