#!/usr/bin/env bash
# Checks which agent CLIs are installed. Looking one up does not run it.
set -u

for agent in claude codex gemini; do
  if command -v "$agent" > /dev/null 2>&1; then
    echo "found $agent"
  fi
done

if ! command -v claude > /dev/null; then
  echo "install claude: npm i -g @anthropic-ai/claude-code" >&2
fi
type codex > /dev/null 2>&1 && echo "codex ok"
which gemini || echo "no gemini"
hash aider 2>/dev/null || echo "no aider"
pkill -f "claude -p" || true
