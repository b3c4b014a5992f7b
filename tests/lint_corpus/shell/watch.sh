#!/usr/bin/env bash
# `watch` runs its command again and again in its own process group, which is this
# script's: an agent there has no group of its own.
set -euo pipefail
watch -n 60 claude -p "status"  # expect: agent-spawn-without-group
watch --interval=5 -d codex exec "status"  # expect: agent-spawn-without-group
watch -q 3 -n 1 timeout 30 gemini -p "status"
watch -n 60 git status
