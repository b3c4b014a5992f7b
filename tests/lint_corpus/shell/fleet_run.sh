#!/bin/sh
# All agent runs go through fleet run: own process group, killed as a whole.
set -e

fleet run -- claude -p "$1"
fleet run --timeout 30m -- codex exec "$1" > codex.log 2>&1 &
wait
