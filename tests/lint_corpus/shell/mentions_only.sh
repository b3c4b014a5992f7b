#!/usr/bin/env bash
# Report on past claude runs. This script never starts claude or codex itself.
set -euo pipefail

LOG_DIR="${LOG_DIR:-$HOME/.claude/logs}"

echo "claude runs today:"
grep -c "claude" "$LOG_DIR/today.log" || true
ls "$LOG_DIR" | grep -E '^(claude|codex)-' | sort
printf '%s\n' "to rerun: claude -p 'summarise'"

if pgrep -f "claude -p" > /dev/null; then
  echo "a claude is still running" >&2
fi

cat <<'TXT'
Usage: claude -p PROMPT
       codex exec PROMPT
TXT
