#!/usr/bin/env bash
set -euo pipefail

AGENT=claude
CODEX_BIN="${CODEX_BIN:-codex}"
EDITOR_BIN="${EDITOR:-vi}"

"$AGENT" -p "summarise CHANGELOG.md" > summary.txt  # expect: agent-spawn-without-group
$CODEX_BIN exec "bump the version"  # expect: agent-spawn-without-group
setsid "$AGENT" -p "grouped run" & # expect: agent-spawn-without-group

"$EDITOR_BIN" summary.txt
