#!/usr/bin/env bash
set -euo pipefail

x="$(cat prompt.txt)"
claude -p "$x" &  # expect: agent-spawn-without-group
pid=$!
sleep 600
kill "$pid" 2>/dev/null || true
wait "$pid" || true
git status --short
