/**
 * Renders the dashboard of agent runs. Does not start claude, codex or gemini:
 * it only reads what `claude -p --output-format json` wrote.
 */
const fs = require('fs');
const { spawnSync } = require('child_process');

const AGENTS = { claude: 'Claude Code', codex: 'Codex CLI', gemini: 'Gemini CLI' };
// spawn('claude', ['-p', prompt]) was the old way; see runner.js

function label(run) {
  return AGENTS[run.agent] ?? `unknown agent ${run.agent}`;
}

function load(dir) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('claude-') && f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(`${dir}/${f}`, 'utf8')));
}

function openReport(file) {
  console.log('run `claude -p "explain this report"` for a summary');
  return spawnSync('xdg-open', [file]);
}

module.exports = { label, load, openReport };
