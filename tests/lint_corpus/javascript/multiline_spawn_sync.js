const childProcess = require('child_process');
const path = require('path');

function runBatch(tasks, cwd) {
  const results = [];
  for (const task of tasks) {
    const result =
      childProcess.spawnSync( // expect: agent-spawn-without-group
        'cursor-agent',
        ['-p', task.prompt, '--output-format', 'json'],
        {
          cwd: path.join(cwd, task.dir),
          encoding: 'utf8',
          timeout: 15 * 60 * 1000,
        },
      );
    results.push(result.stdout);
  }
  return results;
}

function forkWorker() {
  return childProcess.fork(path.join(__dirname, 'worker.js'));
}

module.exports = { runBatch, forkWorker };
