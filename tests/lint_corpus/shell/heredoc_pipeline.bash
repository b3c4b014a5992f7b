#!/usr/bin/env bash
set -euo pipefail

git log --oneline -n 50 | claude -p "group these commits by theme" > themes.md  # expect: agent-spawn-without-group

claude -p "review the diff on stdin" <<PROMPT  # expect: agent-spawn-without-group
Review the following diff. Do not run codex exec or any other agent.
$(git diff HEAD~1)
PROMPT

cat tasks/*.md | timeout 900 qwen -p "plan the week" | tee plan.md
