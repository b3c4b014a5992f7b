#!/usr/bin/env bash
# `env -S STRING` splits STRING into the command line it runs, in this script's group.
set -euo pipefail
env -S "claude -p hi"  # expect: agent-spawn-without-group
env -S'codex exec fix' --  # expect: agent-spawn-without-group
env --split-string="A=1 gemini -p" "$1"  # expect: agent-spawn-without-group
env -S "timeout 600 claude -p hi"
env -S "make -j4" test
env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env env -S env claude -p hi  # expect: agent-spawn-without-group
