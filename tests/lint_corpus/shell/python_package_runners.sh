#!/bin/sh
# An agent run by a Python package runner by its PyPI package name is still that agent.
uvx aider-chat --message "fix the tests" # expect: agent-spawn-without-group
uv tool run --from aider-chat aider --message "fix" # expect: agent-spawn-without-group
pipx run aider-chat --message "fix" # expect: agent-spawn-without-group
uvx ruff check .
