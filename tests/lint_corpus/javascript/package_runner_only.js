// A file whose only mention of an agent is its npm package name: the prefilter must
// keep it (that name holds no agent name as a whole word), or the spawn is never parsed.
const { spawn } = require('child_process');

function review(q) {
  return spawn('npx', ['-y', '@anthropic-ai/claude-code', '-p', q]); // expect: agent-spawn-without-group
}

module.exports = { review };
