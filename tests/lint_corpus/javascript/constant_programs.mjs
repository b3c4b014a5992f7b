// Programs one step away: const template literals, array spreads, heads of const arrays.
import { spawn as start, execFile } from 'node:child_process';
import { execa } from 'execa';

const AGENT = 'gemini';
const CLAUDE_CMD = ['claude', '-p'];
const FLEET_RUN = ['fleet', 'run', '--timeout', '30m', '--'];
const AGENTS = { review: 'codex', plan: 'aider' };
const LINE = `${AGENT} --yolo -p`;

export function template(prompt) {
  return start(`${AGENT} -p ${JSON.stringify(prompt)}`, { shell: true }); // expect: agent-spawn-without-group
}

export function templateConst(prompt) {
  return start(`${LINE} ${prompt}`, { shell: true }); // expect: agent-spawn-without-group
}

export function spread(prompt) {
  const argv = [...CLAUDE_CMD, prompt];
  return execa(argv[0], argv.slice(1)); // expect: agent-spawn-without-group
}

export function head(prompt) {
  return execFile(CLAUDE_CMD[0], [...CLAUDE_CMD.slice(1), prompt]); // expect: agent-spawn-without-group
}

export function concatenated(prompt) {
  const cmd = CLAUDE_CMD.concat([prompt]);
  return start(cmd[0], cmd.slice(1)); // expect: agent-spawn-without-group
}

export function table(prompt) {
  return start(AGENTS.review, ['exec', prompt]); // expect: agent-spawn-without-group
}

export function throughFleet(prompt) {
  const argv = [...FLEET_RUN, 'claude', '-p', prompt];
  return start(argv[0], argv.slice(1));
}

export function dynamic(program, prompt) {
  // Dynamic values are out of reach: not findings.
  start(program, ['-p', prompt]);
  start(`${process.argv[2]} -p`, { shell: true });
  return start(AGENTS[program], [prompt]);
}
