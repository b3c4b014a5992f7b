#!/usr/bin/env bash
# The only agent this script names is the default of `${VAR-default}` (no colon), unquoted:
# the file is still read (the `-` starts the default's word), and the default is the program.
set -euo pipefail
${CLAUDE_BIN-claude} -p "$1"  # expect: agent-spawn-without-group
timeout 600 ${CODEX_BIN-codex} exec "$1"
