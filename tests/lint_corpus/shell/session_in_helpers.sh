#!/usr/bin/env bash
# A session started in one function and killed by another of the same run: the caller
# starts it, a cleanup function (called, or a trap handler) kills its group.
set -euo pipefail

AGENT_PID=""

start_agent() {
  setsid claude -p "$1" > agent.log 2>&1 &
  AGENT_PID=$!
}

stop_agent() {
  [ -n "$AGENT_PID" ] && kill -TERM -- "-$AGENT_PID" 2>/dev/null || true
}

run_review() {
  start_agent "review the diff"
  sleep 600
  stop_agent
}

GEMINI_PID=""

cleanup() {
  kill -KILL -- "-$GEMINI_PID" 2>/dev/null || true
}

start_gemini() {
  setsid gemini -p "$1" &
  GEMINI_PID=$!
}

trap cleanup EXIT
run_review
start_gemini "summarize the log"
wait
