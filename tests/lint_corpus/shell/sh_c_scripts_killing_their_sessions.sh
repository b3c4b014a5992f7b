#!/usr/bin/env bash
# A `sh -c` script is checked as a shell script of its own: one that starts its agent
# in a session and kills that group itself needs nothing from this script. One that
# starts the session and never kills it, or kills the leader alone, is still a finding
# here.
set -u

bash -c 'setsid claude -p x & pid=$!; sleep 60; kill -- -$pid'
sh -c '
setsid codex exec hi &
pid=$!
sleep 60
kill -TERM -- -$pid
'
sh -ec 'setsid claude -p x & pid=$!; trap "kill -- -$pid" EXIT; wait $pid'

bash -c 'setsid claude -p x & sleep 60' # expect: agent-spawn-without-group
bash -c 'setsid codex exec hi & pid=$!; sleep 60; kill $pid' # expect: agent-spawn-without-group
bash -c 'claude -p x & pid=$!; sleep 60; kill -- -$pid' # expect: agent-spawn-without-group
AGENT=gemini
bash -c "setsid $AGENT -p x & pid=\$!; sleep 60; kill -- -\$pid" # expect: agent-spawn-without-group
