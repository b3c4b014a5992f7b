#!/usr/bin/env bash
# Job control gives the background job a group, but nothing kills it.
set -o monitor
gemini -p "$1" &  # expect: agent-spawn-without-group
wait
