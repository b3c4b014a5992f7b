import { spawn } from 'node:child_process';

export async function runGemini(prompt: string, timeoutMs: number): Promise<number> {
  const child = spawn('gemini', ['-p', prompt], { detached: true, stdio: 'inherit' });
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
  const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  clearTimeout(timer);
  return code;
}
