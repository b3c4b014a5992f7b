#!/usr/bin/env bash
# `su ... -c '...'` after wrappers (setsid, nohup, timeout, sudo) runs its command as a
# script, as it does first on the line; runuser and flock are wrappers that keep the group.
set -u

setsid su agent -c "claude -p hi" & # expect: agent-spawn-without-group
pid=$!
trap 'kill -TERM "$pid"' EXIT

nohup su agent -c "gemini -p hi" & # expect: agent-spawn-without-group

timeout 60 setsid su agent -c "codex exec hi" # expect: agent-spawn-without-group

sudo su - agent -c "claude -p hi" # expect: agent-spawn-without-group

runuser -u agent -- claude -p hi # expect: agent-spawn-without-group

flock -w 5 /tmp/agent.lock aider --yes # expect: agent-spawn-without-group

grouped() {
  setsid su agent -c "claude -p hi" &
  spid=$!
  trap 'kill -- -"$spid"' EXIT
  wait
}

nohup su agent -c "make test" &
flock -n 9 || echo busy
runuser -u agent -- make
