#!/bin/sh
# setsid, then the leader alone is killed: its helpers keep running.
setsid aider --message "lint" & # expect: agent-spawn-without-group
pid=$!
sleep 600
kill -9 "$pid"
