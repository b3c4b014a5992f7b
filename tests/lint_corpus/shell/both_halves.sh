#!/usr/bin/env bash
# Both halves of the cleanup: `setsid` starts a session, and the script kills its group.
set -euo pipefail

pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

setsid claude -p "review" > review.log 2>&1 &
pids+=($!)

setsid --wait codex exec "fix the tests" &
pids+=($!)
wait
