import { spawn } from 'node:child_process';

export interface Result {
  code: number | null;
  stdout: string;
}

export function runOpencode(prompt: string, timeoutMs: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn( // expect: agent-spawn-without-group
      'opencode',
      ['run', prompt],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error('timeout'));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}
