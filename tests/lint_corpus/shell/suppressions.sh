#!/usr/bin/env bash
set -euo pipefail

# fleet: allow(agent-spawn-without-group) prints the version and exits, no helpers
claude --version

codex login  # fleet: allow(agent-spawn-without-group) interactive login in the user's terminal

# expect: suppression-without-reason -- fleet: allow(agent-spawn-without-group)
gemini -p "hello"  # expect: agent-spawn-without-group
