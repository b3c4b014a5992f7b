#!/usr/bin/env bash
# Every wrapper of the `transparent` list keeps the agent in this script's group, whatever
# options it takes (values attached or separate, short or long) and whatever it takes
# before the command (taskset's mask or CPU list, chrt's priority). A wrapper told to act on
# a running process (`taskset -p`, `chrt -p`, `ionice -p`) runs nothing.
set -euo pipefail

prompt="$1"
pid="$2"

taskset 0x3 claude -p "$prompt"  # expect: agent-spawn-without-group
taskset -c 0-3 codex exec "$prompt"  # expect: agent-spawn-without-group
taskset --cpu-list 0,2 gemini -p "$prompt"  # expect: agent-spawn-without-group
chrt -f 10 claude -p "$prompt"  # expect: agent-spawn-without-group
chrt 10 aider --yes --message "$prompt"  # expect: agent-spawn-without-group
chrt -d -T 1000000 -P 10000000 -D 10000000 0 goose run -t "$prompt"  # expect: agent-spawn-without-group
stdbuf -o L claude -p "$prompt" | tee log  # expect: agent-spawn-without-group
stdbuf -oL -e 0 codex exec "$prompt"  # expect: agent-spawn-without-group
stdbuf --output L --error=0 gemini -p "$prompt"  # expect: agent-spawn-without-group
caffeinate -i -t 3600 claude -p "$prompt"  # expect: agent-spawn-without-group
caffeinate -w "$pid" amp -x "$prompt"  # expect: agent-spawn-without-group
nice -n 10 claude -p "$prompt"  # expect: agent-spawn-without-group
nice --adjustment 5 codex exec "$prompt"  # expect: agent-spawn-without-group
nice -10 gemini -p "$prompt"  # expect: agent-spawn-without-group
ionice -c 3 claude -p "$prompt"  # expect: agent-spawn-without-group
ionice -c2 -n 7 aider --yes --message "$prompt"  # expect: agent-spawn-without-group
env -u HOME -C /work claude -p "$prompt"  # expect: agent-spawn-without-group
env --chdir /work A=1 codex exec "$prompt"  # expect: agent-spawn-without-group
sudo -u agent -g agent -D /work claude -p "$prompt"  # expect: agent-spawn-without-group
sudo --user agent --chdir /work gemini -p "$prompt"  # expect: agent-spawn-without-group
doas -u agent claude -p "$prompt"  # expect: agent-spawn-without-group
exec -a agent claude -p "$prompt"  # expect: agent-spawn-without-group
xargs -n 1 -P 4 claude -p < prompts.txt  # expect: agent-spawn-without-group
xargs -I {} codex exec {} < prompts.txt  # expect: agent-spawn-without-group
xargs --max-procs 2 gemini -p < prompts.txt  # expect: agent-spawn-without-group
command -p claude -p "$prompt"  # expect: agent-spawn-without-group
builtin command claude -p "$prompt"  # expect: agent-spawn-without-group
nohup taskset -c 1 chrt -f 10 stdbuf -o L claude -p "$prompt" > out.log  # expect: agent-spawn-without-group

taskset -p 0x3 "$pid"
taskset -pc 0-3 "$pid"
chrt -p 10 "$pid"
chrt -m
ionice -c 3 -p "$pid"
command -v claude
taskset -c 0 make -j4
chrt -f 10 stdbuf -o L make test
timeout 600 taskset -c 0-3 claude -p "$prompt"
stdbuf -o L timeout 600 claude -p "$prompt"
