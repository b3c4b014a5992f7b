// A factory for other modules with the group kill it needs beside it.
import { spawn, type ChildProcess } from 'node:child_process';

export function startAgent(prompt: string): ChildProcess {
  return spawn('claude', ['-p', prompt], { detached: true });
}

export function stopAgent(child: ChildProcess): void {
  if (child.pid !== undefined) {
    process.kill(-child.pid, 'SIGKILL');
  }
}
