// A variable of the module declared with a type and no value (`let child:
// ChildProcess | undefined;`, `export let current;`) holds the child a function later
// assigns to it, as `let child = null;` does.
import { spawn, ChildProcess } from 'child_process';

let child: ChildProcess | undefined;
export function start(q: string) {
  child = spawn('claude', ['-p', q], { detached: true });
}

export let current: ChildProcess | undefined;
export function startCurrent(q: string) {
  current = spawn('codex', ['exec', q], { detached: true });
}

let reviewer: ChildProcess | undefined;
export function startReviewer(q: string) {
  reviewer = spawn('gemini', ['-p', q], { detached: true }); // expect: agent-spawn-without-group
}

process.on('exit', () => {
  if (child?.pid) process.kill(-child.pid, 'SIGKILL');
  if (current) process.kill(-current.pid!, 'SIGKILL');
  reviewer?.kill();
});
