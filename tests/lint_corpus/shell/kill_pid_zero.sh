#!/usr/bin/env bash
# Pid 0 is the caller's own group: a child started by setsid has left it.

run_dashes() {
  setsid claude -p "$1" > out.log 2>&1 & # expect: agent-spawn-without-group
  local pid=$!
  ( sleep 900 && kill -TERM -- 0 ) &
  wait "$pid"
}

run_bare() {
  setsid codex exec "$1" > out.log 2>&1 & # expect: agent-spawn-without-group
  local pid=$!
  ( sleep 900 && kill 0 ) &
  wait "$pid"
}

run_its_group() {
  setsid claude -p "$1" > out.log 2>&1 &
  local pid=$!
  ( sleep 900 && kill -TERM -- "-$pid" ) &
  wait "$pid"
}

run_dashes "a"
run_bare "b"
run_its_group "c"
