#!/usr/bin/env bash
set -euo pipefail

agent="${1:-claude}"
prompt="${2:?prompt required}"

case "$agent" in
  claude)
    if ! claude -p "$prompt" > out.txt; then  # expect: agent-spawn-without-group
      echo "claude failed" >&2
      exit 1
    fi
    ;;
  codex)
    codex exec "$prompt" || true  # expect: agent-spawn-without-group
    ;;
  gemini)
    setsid gemini -p "$prompt" && echo done # expect: agent-spawn-without-group
    ;;
  *)
    echo "unknown agent: $agent" >&2
    exit 2
    ;;
esac

[ -f out.txt ] && git add out.txt
