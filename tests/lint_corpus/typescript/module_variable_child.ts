// A child kept in a variable of the module: the module's functions that use it hold
// the same child, and one of them may kill its group.
import { spawn, type ChildProcess } from 'child_process';

let child: ChildProcess | null = null;
let reviewer: ChildProcess | null = null;

export function isRunning() {
  return !!child;
}

export function startClaude(args: string[] = [], cwd?: string) {
  if (child) return { ok: false, msg: 'already running' };
  child = spawn('claude', args, { cwd, detached: true });
  child.on('exit', () => { child = null; });
  return { ok: true };
}

export function stopClaude() {
  if (child?.pid) {
    process.kill(-child.pid, 'SIGTERM');
  }
}

export function startReviewer(diff: string) {
  reviewer = spawn('codex', ['review', diff], { detached: true }); // expect: agent-spawn-without-group
}

export function stopReviewer() {
  reviewer?.kill();
}
