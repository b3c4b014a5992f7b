#!/bin/bash
# `${VAR-default}` and `${VAR=default}` (no colon: the default only when VAR is unset)
# name their program like `${VAR:-default}` does.
"${CLAUDE_BIN-claude}" -p "$1" # expect: agent-spawn-without-group
"${CODEX_BIN=codex}" exec "$1" # expect: agent-spawn-without-group
AGENT="${AGENT=gemini}"
"$AGENT" -p "$1" # expect: agent-spawn-without-group
timeout 600 "${QWEN_BIN-qwen}" -p "$1"
"${TOOL=make}" test
