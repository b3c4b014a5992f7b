import * as cp from 'node:child_process';
import { spawn as nodeSpawn, execFile as runFile } from 'child_process';
import { promisify } from 'node:util';

const runFileAsync = promisify(runFile);

export function codex(prompt: string) {
  return cp.spawn('codex', ['exec', prompt], { stdio: 'inherit' }); // expect: agent-spawn-without-group
}

export function claude(prompt: string) {
  return nodeSpawn('claude', ['-p', prompt]); // expect: agent-spawn-without-group
}

export async function gooseVersion(): Promise<string> {
  const { stdout } = await runFileAsync('goose', ['--version']); // expect: agent-spawn-without-group
  return stdout;
}

export function ls(dir: string) {
  return cp.execFileSync('ls', ['-la', dir], { encoding: 'utf8' });
}
