#!/bin/sh
# `su -c STRING USER` has the user's shell run STRING as a script: it is checked as one.
su -c 'claude -p hi' agent  # expect: agent-spawn-without-group
su - agent --command='cd /repo && codex exec hi'  # expect: agent-spawn-without-group
su agent --session-command 'gemini -p hi'  # expect: agent-spawn-without-group
su -c 'echo claude' agent
su -c 'setsid aider --yes & pid=$!; sleep 60; kill -- -$pid' agent
