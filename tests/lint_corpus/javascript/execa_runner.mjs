import { execa } from 'execa';

export async function review(diff, timeout = 600_000) {
  const { stdout } = await execa('claude', ['-p', `review this diff:\n${diff}`], { // expect: agent-spawn-without-group
    timeout,
    killSignal: 'SIGKILL',
  });
  return stdout;
}

export async function fix(prompt) {
  const result = await execa('aider', ['--yes', '--message', prompt], { reject: false }); // expect: agent-spawn-without-group
  return result.exitCode;
}

export async function lint() {
  await execa('npx', ['eslint', '.'], { stdio: 'inherit' });
}
