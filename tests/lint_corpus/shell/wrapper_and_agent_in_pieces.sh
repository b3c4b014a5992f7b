#!/usr/bin/env bash
# A wrapper and the agent it runs in different pieces: a variable of several words split
# by the shell, an array expanded whole. A quoted "$W" is one word, no wrapper.
W="nohup claude"
X=(env NO_COLOR=1 codex exec)
T="nice -n 5 gzip"

$W -p hi # expect: agent-spawn-without-group
"${X[@]}" "fix it" # expect: agent-spawn-without-group
$T big.log
"$W" -p hi

in_group() {
  setsid $W -p hi &
  pid=$!
  trap 'kill -- -$pid 2>/dev/null' EXIT
  wait "$pid"
}

array_in_group() {
  timeout 600 "${X[@]}" "fix it"
}

unquoted_array() {
  local dir="$1"
  cd "$dir" && ${X[@]} "fix it" # expect: agent-spawn-without-group
}
