#!/usr/bin/env bash
# An agent run through a package runner by its npm package name is still that agent
# (claude, codex); any other package is not.
npx -y @anthropic-ai/claude-code -p "fix the tests" # expect: agent-spawn-without-group
bunx @openai/codex exec "fix it" # expect: agent-spawn-without-group
npx -y prettier --write .
timeout 600 npx -y @anthropic-ai/claude-code -p "fix the tests"
