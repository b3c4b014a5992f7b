// Deno.Command has no way to start a new process group.

export async function ask(prompt: string): Promise<string> {
  const cmd = new Deno.Command('claude', { args: ['-p', prompt], stdout: 'piped' }); // expect: agent-spawn-without-group
  const { stdout } = await cmd.output();
  return new TextDecoder().decode(stdout);
}

export async function head(): Promise<string> {
  const { stdout } = await new Deno.Command('git', { args: ['rev-parse', 'HEAD'] }).output();
  return new TextDecoder().decode(stdout).trim();
}
