#!/bin/bash
# The agent named only as a `${VAR:-default}`: the file is read, and the default is the program.
CLAUDE_BIN="${CLAUDE_BIN:-claude}"
"$CLAUDE_BIN" -p "$1" # expect: agent-spawn-without-group
"${AGENT_BIN:-codex}" exec --full-auto "$1" # expect: agent-spawn-without-group
timeout 600 "${GEMINI_BIN:-gemini}" -p "$1"
"${TOOL:-make}" test
