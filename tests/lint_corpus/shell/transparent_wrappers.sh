#!/usr/bin/env bash
set -euo pipefail

prompt="$(cat "$1")"

nohup claude -p "$prompt" > nohup.out 2>&1 &  # expect: agent-spawn-without-group
env ANTHROPIC_MODEL=claude-sonnet-4 claude -p "$prompt"  # expect: agent-spawn-without-group
sudo -u agent aider --yes --message "$prompt"  # expect: agent-spawn-without-group
nice -n 10 gemini -p "$prompt"  # expect: agent-spawn-without-group
time codex exec "$prompt"  # expect: agent-spawn-without-group
nohup setsid goose run -t "$prompt" > goose.out 2>&1 & # expect: agent-spawn-without-group
env FOO=1 timeout 300 amp -x "$prompt"
