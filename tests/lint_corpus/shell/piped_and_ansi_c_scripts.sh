#!/usr/bin/env bash
# A shell given no script file reads its script from the command piped into it: what
# `echo` or `printf` prints (printf's escapes and conversions, `echo -e`'s escapes
# decoded) is that script. A `$'...'` script has its C escapes decoded, so `\n` ends a
# command. A pipe into a shell that runs a script file, or from a command that prints
# no text it is given, is no script.
set -u

echo "gemini -p hi" | bash -s # expect: agent-spawn-without-group
echo 'claude -p hi' | sh -s -- fast # expect: agent-spawn-without-group
printf 'cd /r\nclaude -p hi\n' | bash # expect: agent-spawn-without-group
printf '%s\n' 'cd /r' 'codex exec hi' | sh # expect: agent-spawn-without-group
echo -e 'cd /r\ncodex exec hi' | bash # expect: agent-spawn-without-group
bash -c $'cd /r\nclaude -p hi' # expect: agent-spawn-without-group
bash -c $'cd /r\x3b gemini -p hi' # expect: agent-spawn-without-group
sh -c $'cd /r\n\x63laude -p hi' # expect: agent-spawn-without-group
echo 'claude -p hi' | sudo -u agent bash -s # expect: agent-spawn-without-group
nohup bash <<< "codex exec hi" # expect: agent-spawn-without-group

echo 'setsid claude -p x & pid=$!; sleep 60; kill -- -$pid' | bash
printf 'timeout 60 claude -p hi\n' | bash
echo 'claude -p hi' | timeout 60 bash
echo 'claude -p hi' | bash ./steps.sh
echo 'claude -p hi' | tee prompt.txt
cat steps.txt | bash
printf 'cd /r\\nclaude -p hi' | grep claude
bash -c $'echo claude\n'
