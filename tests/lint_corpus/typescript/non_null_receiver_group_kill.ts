// TypeScript's wrappers around the child a group kill names: `child!.pid!` (which the
// parser reads as `(-child)!.pid!`), `this.child!.pid!`, `(child.pid as number)`,
// `<number>child.pid` and `child?.pid` all kill that child's group. A `!` does not make
// a kill of another child this one's.
import { spawn, ChildProcess, SpawnOptions } from 'child_process';

let current: ChildProcess | undefined;

export function start(q: string) {
  current = spawn('claude', ['-p', q], { detached: true });
}

process.on('SIGTERM', function () {
  process.kill(-current!.pid!, 'SIGKILL');
});

export class Agent {
  child?: ChildProcess;
  constructor(private readonly bin = 'claude') {}
  start = (q: string) => {
    this.child = spawn(this.bin, ['-p', q], { detached: true });
  };
  stop = () => {
    process.kill(-this.child!.pid!, 'SIGKILL');
  };
}

export function castPid(q: string) {
  const child = spawn('codex', ['exec', q], { detached: true });
  setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 60_000);
}

export function assertedPid(q: string) {
  const child = spawn('gemini', ['-p', q], { detached: true });
  setTimeout(() => process.kill(-<number>child.pid, 'SIGKILL'), 60_000);
}

export function optionalPid(q: string) {
  const child = spawn('claude', ['-p', q], { detached: true });
  setTimeout(() => process.kill(-child?.pid!, 'SIGKILL'), 60_000);
}

export function boundNegated(q: string) {
  const child = spawn('claude', ['-p', q], { detached: true });
  const pgid = -child!.pid!;
  setTimeout(() => process.kill(pgid, 'SIGKILL'), 60_000);
}

export function killsTheOther(q: string) {
  const first = spawn('codex', ['exec', q], { detached: true });
  const second = spawn('claude', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
  first.on('exit', () => process.kill(-first!.pid!, 'SIGKILL'));
}

let asserted: ChildProcess | null = null;

export function startAsserted(q: string) {
  asserted = spawn('codex', ['exec', q], { detached: true })!;
}

export function stopAsserted() {
  process.kill(-(asserted as ChildProcess).pid!, 'SIGTERM');
}

const BASE: SpawnOptions = { stdio: 'pipe' };

export function assignedAndCast(q: string) {
  const c = spawn('claude', ['-p', q], Object.assign({}, BASE, { detached: true }) as SpawnOptions);
  c.on('exit', () => process.kill(-c!.pid!, 'SIGKILL'));
}
