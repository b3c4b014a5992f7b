#!/usr/bin/env bash
# `set -m`: job control puts each background job in a process group of its own, which
# `kill -- -$pid` then kills whole. A foreground command stays in the script's group.
set -euo pipefail
set -m

claude -p "$1" &
pid=$!
trap 'kill -- -$pid 2>/dev/null || true' EXIT
wait "$pid"

codex exec "$1"  # expect: agent-spawn-without-group
