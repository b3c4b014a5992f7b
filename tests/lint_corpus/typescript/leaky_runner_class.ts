import { spawn, ChildProcessWithoutNullStreams } from 'child_process';
import { EventEmitter } from 'events';

export class CodexSession extends EventEmitter {
  private proc: ChildProcessWithoutNullStreams | null = null;

  async run(prompt: string, timeoutMs = 600_000): Promise<string> {
    const proc = spawn('codex', ['exec', '--json', prompt]); // expect: agent-spawn-without-group
    this.proc = proc;
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    let out = '';
    for await (const chunk of proc.stdout) {
      out += chunk;
      this.emit('progress', chunk.toString());
    }
    clearTimeout(timer);
    return out;
  }

  cancel(): void {
    this.proc?.kill();
  }
}
