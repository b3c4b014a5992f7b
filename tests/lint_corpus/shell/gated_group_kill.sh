#!/usr/bin/env bash
# The group is killed only while the leader is alive.
setsid opencode run "triage" & # expect: agent-spawn-without-group
pid=$!
sleep 600
if kill -0 "$pid" 2>/dev/null; then
  kill -- -"$pid"
fi
