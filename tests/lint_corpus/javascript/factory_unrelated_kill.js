// A factory nobody in this module calls (API for others) in a module whose one group
// kill ends another spawn's own child: that kill is not the factory's.
const { spawn } = require('node:child_process');

export function startQwen(prompt) {
  return spawn('qwen', ['-p', prompt], { detached: true }); // expect: agent-spawn-without-group
}

export function review(diff) {
  const child = spawn('codex', ['review', diff], { detached: true });
  child.on('exit', () => process.kill(-child.pid, 'SIGKILL'));
  return new Promise((resolve) => child.on('close', resolve));
}
