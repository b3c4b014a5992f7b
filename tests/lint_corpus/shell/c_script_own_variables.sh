#!/bin/sh
# A `bash -c` script's own variables and arrays are followed as a script file's are:
# the program is what the script assigns itself, or an expansion's default.
bash -c 'A=gemini; $A -p hi'  # expect: agent-spawn-without-group
bash -c 'CMD=(codex exec); "${CMD[@]}" x'  # expect: agent-spawn-without-group
sh -c 'W="nohup claude"; $W -p hi'  # expect: agent-spawn-without-group
sh -c '"${AGENT:-aider}" --yes'  # expect: agent-spawn-without-group
bash -c 'A=echo; $A claude'
