#!/usr/bin/env bash
# A script given to a shell on its standard input (a here-document, a here-string) or
# to `eval` runs its commands as a `-c` script would: an agent in it needs a group.
# A here-document of a program that is no shell (`cat`, the agent itself) is text, and
# a shell given a script file reads no script from its standard input.
set -u

bash <<'EOS' # expect: agent-spawn-without-group
claude -p hi
EOS

sh -s -- fast <<EOS # expect: agent-spawn-without-group
codex exec "$1"
EOS

bash <<< "gemini -p hi" # expect: agent-spawn-without-group

eval "claude -p hi" # expect: agent-spawn-without-group
eval "setsid claude -p hi & pid=\$!; sleep 60; kill -- -\$pid"

bash <<'EOS'
setsid claude -p x & pid=$!
sleep 60
kill -- -$pid
EOS

cat <<'EOS' > prompt.txt
Run claude -p hi, then codex exec.
EOS

bash ./steps.sh <<'EOS'
claude -p hi
EOS
eval "make test"
