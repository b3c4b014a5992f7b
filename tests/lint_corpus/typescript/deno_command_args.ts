// `new Deno.Command(program, { args })` has no group option: its `args` are read past a
// wrapper or as an `sh -c` script, as a spawn's argument array is.
export function wrapped() {
  return new Deno.Command('nohup', { args: ['claude', '-p'] }); // expect: agent-spawn-without-group
}

export function script() {
  return new Deno.Command('sh', { args: ['-c', 'codex exec hi'] }); // expect: agent-spawn-without-group
}

export function noAgent() {
  return new Deno.Command('sh', { args: ['-c', 'make test'] });
}
