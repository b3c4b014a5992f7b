// A method's group kill counts for a spawn in another method only when the object can
// hold that child (stored on it, handed to a method): a child kept in a local is not the
// one `close()` kills.
import { spawn, type ChildProcess } from 'node:child_process';

export class Reviewer {
  private server: ChildProcess = spawn('python3', ['-m', 'http.server'], { detached: true });

  review(diff: string): Promise<number | null> {
    const child = spawn('claude', ['-p', diff], { detached: true }); // expect: agent-spawn-without-group
    return new Promise((resolve) => child.on('exit', resolve));
  }

  close(): void {
    process.kill(-this.server.pid!, 'SIGTERM');
  }
}

export class Pool {
  private children: ChildProcess[] = [];

  private track(child: ChildProcess): void {
    this.children.push(child);
  }

  run(task: string): void {
    const child = spawn('codex', ['exec', task], { detached: true });
    this.track(child);
  }

  close(): void {
    for (const child of this.children) process.kill(-child.pid!, 'SIGKILL');
  }
}
