import { execa, execaCommand } from 'execa';

type Task = { id: string; prompt: string };

export async function runTask(task: Task): Promise<string> {
  const { stdout } = await execa('gemini', ['--yolo', '-p', task.prompt], { timeout: 900_000 }); // expect: agent-spawn-without-group
  return stdout;
}

export async function runCommandString(task: Task): Promise<string> {
  const { stdout } = await execaCommand(`opencode run ${task.id}`); // expect: agent-spawn-without-group
  return stdout;
}

export async function typecheck(): Promise<void> {
  await execa('npx', ['tsc', '--noEmit']);
}
