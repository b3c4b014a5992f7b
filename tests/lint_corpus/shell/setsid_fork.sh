#!/usr/bin/env bash
# `setsid --fork` forks: the session is a grandchild's, `$!` is the setsid that exited,
# and `kill -- -$!` reaches nothing. Plain `setsid` execs in place: `$!` is the session's id.
set -euo pipefail

forked() {
  setsid --fork claude -p "$1" &  # expect: agent-spawn-without-group
  local pid=$!
  trap 'kill -- -"$pid"' EXIT
  wait "$pid"
}

forked_short() {
  setsid -f codex exec "$1" &  # expect: agent-spawn-without-group
  local pid=$!
  trap 'kill -TERM -- -"$pid"' EXIT
  wait "$pid"
}

in_place() {
  setsid gemini -p "$1" &
  local pid=$!
  trap 'kill -- -"$pid"' EXIT
  wait "$pid"
}

forked_tool() {
  setsid --fork gzip "$1" &
  wait
}

forked "review"
forked_short "triage"
in_place "summarise"
forked_tool out.log

# Under `set -m` each background job leads a group of its own, so setsid forks there too.
monitored() {
  set -m
  setsid claude -p "$1" &  # expect: agent-spawn-without-group
  local pid=$!
  trap 'kill -- -"$pid"' EXIT
  wait "$pid"
}

monitored_group_killed() {
  set -m
  claude -p "$1" &
  local pid=$!
  trap 'kill -- -"$pid"' EXIT
  wait "$pid"
}

monitored "again"
monitored_group_killed "once more"
