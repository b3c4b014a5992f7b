import * as child_process from 'node:child_process';
import { execa } from 'execa';

export class Worker {
  private proc?: child_process.ChildProcess;

  run(prompt: string): void {
    this.proc = child_process.spawn('opencode', ['run', prompt], { detached: true });
    process.once('SIGTERM', () => this.dispose());
  }

  dispose(): void {
    if (this.proc?.pid !== undefined) {
      process.kill(-this.proc.pid, 'SIGKILL');
    }
  }
}

export async function viaExeca(prompt: string): Promise<void> {
  const sub = execa('claude', ['-p', prompt], { detached: true });
  const timer = setTimeout(() => process.kill(-sub.pid!, 'SIGKILL'), 600_000);
  await sub;
  clearTimeout(timer);
}

export async function notKilled(prompt: string): Promise<void> {
  const sub = execa('codex', ['exec', prompt], { detached: true }); // expect: agent-spawn-without-group
  await sub;
}
