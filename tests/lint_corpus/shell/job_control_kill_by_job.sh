#!/usr/bin/env bash
# Under job control (`set -m`) `kill %1` signals the background job's whole process
# group, as `kill -- -$pid` does; a `trap 'kill %1' EXIT` too. A job that runs
# `setsid` has left its job's group: `kill %1` reaches only its leader.
set -u

at_top() {
  set -m
  claude -p "$1" &
  sleep 60
  kill %1
}

in_trap() {
  set -m
  trap 'kill %%' EXIT
  codex exec "$1" &
  wait
}

leader_pid_only() {
  set -m
  gemini -p "$1" & # expect: agent-spawn-without-group
  pid=$!
  sleep 60
  kill "$pid"
}

session_in_job() {
  set -m
  setsid claude -p "$1" & # expect: agent-spawn-without-group
  sleep 60
  kill %1
}
