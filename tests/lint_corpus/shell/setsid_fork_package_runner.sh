#!/usr/bin/env bash
# `setsid --fork` in front of a package runner running an agent's package: the agent all
# the same, so a finding whatever kills (`$!` is not the session's id).
set -euo pipefail
PROMPT="${1:-hello}"

setsid --fork pipx run aider-chat --message "$PROMPT" # expect: agent-spawn-without-group
pid=$!
trap 'kill -- -"$pid"' EXIT
wait

setsid -f pnpm dlx @google/gemini-cli -p "$PROMPT" # expect: agent-spawn-without-group

setsid uvx --from aider-chat aider --yes &
spid=$!
trap 'kill -- -"$spid"' EXIT
wait
