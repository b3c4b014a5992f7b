#!/bin/sh
# A nested `-c` script inside a double-quoted one: `\"` inside "..." is a quote the
# inner shell reads, so the inner script is `bash -c "claude -p hi"`.
bash -c "bash -c \"claude -p hi\"" # expect: agent-spawn-without-group
eval "sh -c \"codex exec hi\"" # expect: agent-spawn-without-group
bash -c "bash -c \"echo claude -p hi\""
eval "sh -c \"printf '%s\\n' codex\""
