#!/usr/bin/env bash
# `set -m` in one function turns on job control there, not for a function defined apart.
with_jobs() {
  set -m
  claude -p "$1" &
  pid=$!
  trap 'kill -- -$pid' EXIT
  wait "$pid"
}

without_jobs() {
  codex exec "$1" &  # expect: agent-spawn-without-group
  wait
}
