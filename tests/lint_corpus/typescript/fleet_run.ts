import { spawn } from 'node:child_process';
import { execa } from 'execa';

export function runAgent(agent: string, prompt: string) {
  return spawn('fleet', ['run', '--', agent, '-p', prompt], { stdio: 'inherit' });
}

export async function runClaude(prompt: string): Promise<string> {
  const { stdout } = await execa('fleet', ['run', '--timeout', '10m', '--', 'claude', '-p', prompt]);
  return stdout;
}
