#!/usr/bin/env bash
set -euo pipefail

ls prompts/*.txt | xargs -n1 -P4 claude -p  # expect: agent-spawn-without-group
bash -c "codex exec 'fix the flaky test'"  # expect: agent-spawn-without-group
find prompts -name '*.txt' | xargs -n1 setsid gemini -p # expect: agent-spawn-without-group
bash -c "make -j4 && make test"
