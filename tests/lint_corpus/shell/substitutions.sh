#!/usr/bin/env bash
set -euo pipefail

diff="$(git diff --cached)"
msg=$(claude -p "write a commit message for: $diff")  # expect: agent-spawn-without-group
review="$(timeout 300 codex exec "review: $diff")"
echo "$msg" "$review"

summary=`gemini -p "summarise $msg"`  # expect: agent-spawn-without-group
echo "$summary"
