#!/usr/bin/env bash
# The only agent this script names is the default of `"${VAR-default}"` (no colon), quoted:
# the file is still read, and the default is the program.
set -euo pipefail
"${GEMINI_BIN-gemini}" -p "$1"  # expect: agent-spawn-without-group
setsid "${AIDER_BIN-aider}" --yes --message "$1" &
kill -- -"$!"
