#!/usr/bin/env bash
# The one group kill of the script ends another function's own session: it is not the
# cleanup of the claude session started in review().
set -euo pipefail

review() {
  setsid claude -p "review the diff" > review.log 2>&1 &  # expect: agent-spawn-without-group
  wait $!
}

lint_with_codex() {
  setsid codex exec "lint" &
  local pid=$!
  trap 'kill -- -$pid 2>/dev/null' RETURN
  wait "$pid"
}

review
lint_with_codex
