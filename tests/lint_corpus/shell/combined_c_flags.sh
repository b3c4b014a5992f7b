#!/bin/sh
# `-c` among other one-letter flags (`-lc`, `-ec`, `-xc`) still makes the next word a script.
bash -lc 'claude -p hi' # expect: agent-spawn-without-group
sh -ec "cd /work && codex exec --full-auto fix" # expect: agent-spawn-without-group
bash -xc 'make test'
bash -lc 'timeout 600 gemini -p hi'
bash --rcfile ./rc -i
