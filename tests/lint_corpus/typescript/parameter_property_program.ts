// A TypeScript parameter property (`constructor(private readonly bin = 'claude')`) is a
// field of the object: `this.bin` holds its default.
import { spawn } from 'child_process';

export class ClaudeSpawner {
  constructor(private readonly bin = 'claude') {}

  run(q: string) {
    return spawn(this.bin, ['-p', q]); // expect: agent-spawn-without-group
  }
}

export class GroupedSpawner {
  constructor(public bin: string = 'codex') {}

  run(q: string) {
    const child = spawn(this.bin, ['exec', q], { detached: true });
    setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 600000);
    return child;
  }
}

export class ToolSpawner {
  constructor(private readonly bin = 'make') {}

  run() {
    return spawn(this.bin, ['all']);
  }
}
