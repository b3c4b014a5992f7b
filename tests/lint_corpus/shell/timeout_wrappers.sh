#!/bin/bash
# Runs each agent with a hard time limit.
set -eu

prompt="$1"

timeout 600 claude -p "$prompt" > claude.out
timeout -s KILL 15m gemini -p "$prompt" > gemini.out
timeout --foreground 600 codex exec "$prompt" > codex.out  # expect: agent-spawn-without-group
timeout --kill-after=30s 20m aider --yes --message "$prompt"

timeout 60 make test
