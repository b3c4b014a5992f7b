#!/usr/bin/env bash
# A coprocess (`coproc CMD`, `coproc NAME { CMD; }`) runs asynchronously in a subshell of
# this script's process group, like a `&` job: an agent there has no group of its own.
set -euo pipefail
coproc claude -p "$1"  # expect: agent-spawn-without-group
coproc AGENT { codex exec "$1"; }  # expect: agent-spawn-without-group
coproc { gemini -p "$1"; }  # expect: agent-spawn-without-group
coproc LIMITED { timeout 600 aider --yes --message "$1"; }
coproc SORTER { sort -u; }
