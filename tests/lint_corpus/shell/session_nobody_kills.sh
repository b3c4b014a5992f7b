#!/bin/sh
# A session of its own, and nothing kills it; timeout alone signals its group.
setsid goose run -t "plan" > plan.log 2>&1 & # expect: agent-spawn-without-group
timeout -k 10 600 claude -p "review"
wait
# timeout signals its own group; a session started under it has left that group.
timeout -s KILL 600 setsid codex exec "fix" # expect: agent-spawn-without-group
