#!/usr/bin/env bash
# A group kill is gated on the leader being alive only where `kill -0 $pid` succeeded:
# in `if ! kill -0`, in the `else` of `if kill -0`, or after `kill -0 ||`, it is not.
setsid codex exec "two" &
two=$!
wait "$two"
if ! kill -0 "$two" 2>/dev/null; then
  kill -- -"$two" 2>/dev/null
fi

setsid gemini -p "three" &
three=$!
wait "$three"
if kill -0 "$three" 2>/dev/null; then
  echo running
else
  kill -- -"$three" 2>/dev/null
fi

setsid opencode run "four" &
four=$!
wait "$four"
kill -0 "$four" 2>/dev/null || kill -- -"$four"
