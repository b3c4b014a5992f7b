#!/usr/bin/env bash
# In the `else` of `if ! kill -0 $pid` the leader is alive: the group kill is gated on it.
setsid claude -p "one" & # expect: agent-spawn-without-group
one=$!
wait "$one"
if ! kill -0 "$one" 2>/dev/null; then
  echo gone
else
  kill -- -"$one"
fi
