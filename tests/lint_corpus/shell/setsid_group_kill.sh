#!/usr/bin/env bash
set -euo pipefail

run_agent() {
  local prompt="$1"
  setsid claude -p "$prompt" > "out/$(date +%s).log" 2>&1 &
  local pid=$!
  ( sleep 900 && kill -TERM -- "-$pid" ) &
  wait "$pid"
}

run_agent_fork() {
  setsid --fork opencode run "$1"  # expect: agent-spawn-without-group
}

mkdir -p out
run_agent "review the open pull requests"
run_agent_fork "triage"
