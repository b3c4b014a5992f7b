#!/usr/bin/env bash
# Programs one step away: variables assigned once, arrays, words of a command line.
set -euo pipefail

readonly AGENT="claude --model opus"
CMD=(codex exec --full-auto)
BIN_DIR=/opt/agents/bin
GEMINI="$BIN_DIR/gemini"
declare -r TOOL=aider
TASK="$1"

$AGENT -p "summarise" # expect: agent-spawn-without-group
"${CMD[@]}" "$TASK" # expect: agent-spawn-without-group
"$GEMINI" -p "$TASK" # expect: agent-spawn-without-group
"$TOOL" --message "$TASK" # expect: agent-spawn-without-group
timeout 600 "${CMD[@]}" "$TASK"

# Dynamic values are out of reach: not findings.
"$TASK" --help
PROGRAM=$(cat program.txt)
"$PROGRAM" -p x
