import { spawn, type ChildProcess } from 'node:child_process';

const CLAUDE_BIN = 'claude';

export interface RunOptions {
  prompt: string;
  timeoutMs: number;
  cwd?: string;
}

export class AgentRunner {
  private child?: ChildProcess;

  constructor(private readonly model: string = 'sonnet') {}

  start({ prompt, timeoutMs, cwd }: RunOptions): Promise<number> {
    this.child = spawn(CLAUDE_BIN, ['-p', prompt, '--model', this.model], {
      cwd,
      detached: true,
      stdio: 'inherit',
    });
    const timer = setTimeout(() => this.stop(), timeoutMs);
    return new Promise((resolve) => {
      this.child!.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code ?? -1);
      });
    });
  }

  stop(): void {
    if (this.child?.pid) {
      process.kill(-this.child.pid, 'SIGTERM');
    }
  }
}
