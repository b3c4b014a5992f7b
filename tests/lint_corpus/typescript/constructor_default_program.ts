// The program kept on the object from a constructor parameter's default
// (`constructor(claudeCommand = 'claude')`, then `this.claudeCommand`) is followed.
import { ChildProcess, spawn } from 'child_process';

export class ClaudeProcessSpawner {
  private readonly claudeCommand: string;

  constructor(claudeCommand = 'claude') {
    this.claudeCommand = claudeCommand;
  }

  spawn(prompt: string, cwd: string): ChildProcess {
    return spawn(this.claudeCommand, ['--print', prompt], { cwd }); // expect: agent-spawn-without-group
  }
}

export class GroupedSpawner {
  private readonly bin: string = 'codex';

  run(task: string): ChildProcess {
    const child = spawn(this.bin, ['exec', task], { detached: true });
    setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 600_000);
    return child;
  }
}

export class Formatter {
  constructor(private readonly bin: string = 'prettier') {}

  format(file: string): ChildProcess {
    return spawn(this.bin, ['--write', file]);
  }
}
