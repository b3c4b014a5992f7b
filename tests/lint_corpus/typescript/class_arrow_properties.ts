// Class properties holding arrow functions are methods by another syntax: the child one
// sets on `this` is ended by the group kill in another (`stop = () => ...`), and only that.
import { spawn, type ChildProcess } from 'child_process';

export class Runner {
  private child: ChildProcess | null = null;

  start = (q: string): void => {
    this.child = spawn('claude', ['-p', q], { detached: true });
  };

  stop = (): void => {
    if (this.child && this.child.pid) process.kill(-this.child.pid, 'SIGTERM');
  };
}

export class LeaderOnly {
  private child?: ChildProcess;

  start = (q: string) => {
    this.child = spawn('codex', ['exec', q], { detached: true }); // expect: agent-spawn-without-group
  };

  stop = () => {
    this.child?.kill('SIGTERM');
  };
}
