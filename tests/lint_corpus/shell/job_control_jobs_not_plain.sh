#!/usr/bin/env bash
# Under `set -m` a background job is the whole statement before `&`: a command with
# redirections, a pipeline (its group led by its first command), a `{ ...; }` group.
# `kill %1` (`%%`, `%name` matching the start of the job's text, `%?text` any part of
# it) kills that group whole, and `setsid` leading such a job forks.
set -u

redirected() {
  set -m
  claude -p "$1" > out.txt &
  trap 'kill %1 2>/dev/null' EXIT
  wait
}

redirected_stderr() {
  set -m
  codex exec "$1" 2>>err.log &
  sleep 120
  kill %%
}

by_name() {
  set -m
  aider --yes --message "$1" > aider.log 2>&1 &
  trap 'kill %aider 2>/dev/null' EXIT INT TERM
  wait
}

stdin_redirected() {
  set -m
  gemini -p "$1" </dev/null &
  sleep 60
  kill %1
}

pipeline() {
  set -m
  claude -p "$1" | tee out.txt &
  trap 'kill %1 2>/dev/null' EXIT
  wait
}

group() {
  set -m
  { cd /repo && codex exec "$1"; } > run.log &
  sleep 60
  kill %1
}

second_in_pipeline_by_text() {
  set -m
  cat prompt.txt | claude -p "$1" &
  sleep 60
  kill %?claude
}

second_in_pipeline_not_named() {
  set -m
  cat prompt.txt | claude -p "$1" & # expect: agent-spawn-without-group
  sleep 60
  kill %claude
}

group_not_named() {
  set -m
  { gemini -p "$1"; } > run.log & # expect: agent-spawn-without-group
  sleep 60
  kill %gemini
}

setsid_redirected() {
  set -m
  setsid claude -p "$1" > out.txt & # expect: agent-spawn-without-group
  pid=$!
  trap 'kill -- -$pid' EXIT
  wait
}

setsid_appending() {
  set -m
  setsid gemini -p "$1" >>run.log 2>&1 & # expect: agent-spawn-without-group
  pid=$!
  sleep 60
  kill -- -$pid
}

setsid_leads_pipeline() {
  set -m
  setsid codex exec "$1" | tee out.txt & # expect: agent-spawn-without-group
  pid=$!
  sleep 60
  kill -- -$pid
}

# Not the pipeline's first command: setsid is no group leader, makes the session in
# place, and `$!` (the last command's pid) is its id.
setsid_second_in_pipeline() {
  set -m
  cat prompt.txt | setsid claude -p "$1" &
  pid=$!
  sleep 60
  kill -- -$pid
}
