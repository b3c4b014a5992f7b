#!/bin/zsh
# A .zsh file is a shell script like any other.
claude -p "review" # expect: agent-spawn-without-group
setsid codex exec "fix" > fix.log 2>&1 &
pid=$!
( sleep 900 && kill -TERM -- "-$pid" ) &
wait "$pid"
