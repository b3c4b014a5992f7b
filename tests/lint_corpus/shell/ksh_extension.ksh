# A .ksh file is a shell script like any other.
gemini -p "plan" # expect: agent-spawn-without-group
