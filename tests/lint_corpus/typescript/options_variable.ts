import { spawn, type SpawnOptions } from 'node:child_process';

const GROUP_OPTIONS: SpawnOptions = { detached: true, stdio: 'inherit' };

export function start(prompt: string) {
  const child = spawn('claude', ['-p', prompt], GROUP_OPTIONS);
  const kill = () => {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  };
  process.once('SIGINT', kill);
  return { child, kill };
}

export function startWithOptions(prompt: string) {
  const options: SpawnOptions = { stdio: 'inherit', detached: true };
  const child = spawn('gemini', ['-p', prompt], options);
  return child;
}

export function startUngrouped(prompt: string) {
  const options: SpawnOptions = { stdio: 'inherit' };
  return spawn('codex', ['exec', prompt], options); // expect: agent-spawn-without-group
}
