// TypeScript casts around object literals: `as const`, `as T`, `satisfies T` hide nothing.
import { spawn, type SpawnOptions } from 'child_process';

const AGENTS = { claude: 'claude', codex: 'codex' } as const;
const BIN = { agent: 'claude' } satisfies Record<string, string>;
const GROUP = { detached: true } as const;
const OPTS = { detached: true, stdio: 'pipe' } as const;
const WINDOWS_ONLY = { detached: process.platform === 'win32' } as const;

export function asConstProgram(prompt: string) {
  return spawn(AGENTS.codex, ['exec', prompt]); // expect: agent-spawn-without-group
}

export function satisfiesProgram(prompt: string) {
  return spawn(BIN.agent, ['-p', prompt]); // expect: agent-spawn-without-group
}

export function spreadOfAsConst(prompt: string) {
  const child = spawn('claude', ['-p', prompt], { ...GROUP, stdio: 'pipe' });
  child.on('exit', () => {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch {}
  });
  return child;
}

export function optionsAsConst(prompt: string) {
  const child = spawn('claude', ['-p', prompt], OPTS);
  child.on('exit', () => { process.kill(-child.pid!, 'SIGKILL'); });
  return child;
}

export function optionsCast(prompt: string) {
  const child = spawn('claude', ['-p', prompt], { detached: true, stdio: 'inherit' } as SpawnOptions);
  child.on('exit', () => {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch {}
  });
  return child;
}

export function detachedOnUnix(prompt: string) {
  const child = spawn('gemini', ['-p', prompt], { detached: process.platform !== 'win32' });
  child.on('exit', () => {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch {}
  });
  return child;
}

export function detachedOnWindowsOnly(prompt: string) {
  const child = spawn('gemini', ['-p', prompt], WINDOWS_ONLY); // expect: agent-spawn-without-group
  child.on('exit', () => {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch {}
  });
  return child;
}
