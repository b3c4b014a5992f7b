#!/usr/bin/env bash
# `pkill -P PID` signals the leader's children, not the group.
setsid codex exec "$1" &  # expect: agent-spawn-without-group
pid=$!
trap 'pkill -TERM -P "$pid"' EXIT
wait "$pid"
