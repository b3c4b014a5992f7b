export async function runAgent(prompt: string): Promise<string> {
  const proc = Bun.spawn({ cmd: ['codex', 'exec', prompt], stdout: 'pipe' }); // expect: agent-spawn-without-group
  return await new Response(proc.stdout).text();
}

export function version(): string {
  const res = Bun.spawnSync(['bun', '--version']);
  return res.stdout.toString();
}
