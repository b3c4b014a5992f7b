import { spawn, spawnSync } from 'child_process';

export function version(): string {
  return spawnSync('codex', ['--version'], { encoding: 'utf8' }).stdout; // fleet: allow(agent-spawn-without-group) exits at once
}

export function login(): void {
  // fleet: allow(agent-spawn-without-group) interactive login flow in the user's terminal
  spawn('claude', ['/login'], { stdio: 'inherit' });
}

export function lazy(prompt: string): void {
  /* expect: suppression-without-reason -- fleet: allow(agent-spawn-without-group) */
  spawn('aider', ['--message', prompt]); // expect: agent-spawn-without-group
}
