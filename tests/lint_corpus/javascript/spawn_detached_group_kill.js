'use strict';

const { spawn } = require('child_process');

function runClaude(prompt, timeoutMs = 10 * 60 * 1000) {
  return new Promise((resolve, reject) => {
    const args = ['-p', prompt, '--output-format', 'json'];
    const child = spawn('claude', args, { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => {
      // negative pid: the whole group, helpers included
      process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`claude exited ${code}`));
    });
  });
}

module.exports = { runClaude };
