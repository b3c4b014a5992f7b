import { spawnSync } from 'node:child_process';

/** Which CLI produced a transcript. `claude` is Claude Code, `codex` the OpenAI CLI. */
export type AgentName = 'claude' | 'codex' | 'gemini';

export const DISPLAY: Record<AgentName, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini',
};

// TODO: spawn('claude', ['-p', summaryPrompt]) once the runner has group kills
export function describe(agent: AgentName): string {
  const hint = `try: claude -p "hello"`;
  return `${DISPLAY[agent]} (${hint})`;
}

export function diffStat(): string {
  return spawnSync('git', ['diff', '--stat', '--', 'claude/'], { encoding: 'utf8' }).stdout;
}
