#!/usr/bin/env bash
# A check that returns or exits once the leader is gone, between the spawn and the group
# kill, gates the kill on the leader: when it exits first its helpers survive. An exit
# taken while it is alive leaves the kill for after it exited, and is no gate; nor is a
# check before the spawn, which asks about an earlier process.
set -u

returns_if_gone() {
  setsid claude -p "$1" & # expect: agent-spawn-without-group
  local pid=$!
  sleep 60
  if ! kill -0 "$pid" 2>/dev/null; then
    return 0
  fi
  kill -- -"$pid"
}

exits_if_gone() {
  setsid codex exec "$1" & # expect: agent-spawn-without-group
  local pid=$!
  sleep 60
  if ! kill -0 "$pid"; then
    echo "already done"
    exit 0
  fi
  kill -TERM -- -"$pid"
}

or_exit() {
  setsid gemini -p "$1" & # expect: agent-spawn-without-group
  local pid=$!
  sleep 60
  kill -0 $pid || exit 0
  kill -- -$pid
}

or_return_redirected() {
  setsid opencode run "$1" & # expect: agent-spawn-without-group
  local pid=$!
  sleep 60
  kill -0 "$pid" 2>/dev/null || return
  kill -- -"$pid"
}

or_group_returning() {
  setsid claude -p "$1" & # expect: agent-spawn-without-group
  local pid=$!
  sleep 60
  kill -0 "$pid" || { echo gone; return 0; }
  kill -- -"$pid"
}

returns_while_alive() {
  setsid claude -p "$1" &
  local pid=$!
  wait "$pid"
  if kill -0 "$pid" 2>/dev/null; then
    return 1
  fi
  kill -- -"$pid"
}

and_return() {
  setsid codex exec "$1" &
  local pid=$!
  wait "$pid"
  kill -0 "$pid" && return 1
  kill -- -"$pid"
}

check_before_the_spawn() {
  if ! kill -0 "$WATCHER" 2>/dev/null; then
    return 0
  fi
  setsid gemini -p "$1" &
  local pid=$!
  sleep 60
  kill -- -"$pid"
}

exit_runs_the_trap() {
  setsid claude -p "$1" &
  local pid=$!
  trap 'kill -- -"$pid"' EXIT
  if ! kill -0 "$pid" 2>/dev/null; then
    exit 0
  fi
  kill -- -"$pid"
}
