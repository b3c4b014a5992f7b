# A `bash -c` script is checked as a shell script of its own: one that starts its
# agent in a session and kills that group itself needs no group from the Popen that
# starts the shell. One that never kills the session it starts is still a finding, and
# so is any under a call that waits (`subprocess.run`): on timeout or Ctrl-C it kills
# the shell with SIGKILL, before the script's own kill or trap can run.
import os
import subprocess


def owned():
    return subprocess.Popen(["bash", "-c", "setsid claude -p x & pid=$!; sleep 60; kill -- -$pid"])


def owned_with_trap():
    return subprocess.Popen(["sh", "-ec", "setsid codex exec hi & pid=$!; trap 'kill -- -$pid' EXIT; wait $pid"])


def owned_but_waited_for():
    subprocess.run(["sh", "-ec", "setsid codex exec hi & pid=$!; trap 'kill -- -$pid' EXIT; wait $pid"])  # expect: agent-spawn-without-group


def never_killed():
    return subprocess.Popen(["bash", "-c", "setsid claude -p x & sleep 60"])  # expect: agent-spawn-without-group


def leader_only():
    return subprocess.Popen(["bash", "-c", "setsid gemini -p x & pid=$!; sleep 60; kill $pid"])  # expect: agent-spawn-without-group


# A command string the shell runs (`os.system`, `shell=True`) is a script too.
def system_owned():
    os.system("setsid claude -p x & pid=$!; sleep 60; kill -- -$pid")


def system_never_killed():
    os.system("setsid claude -p x & sleep 60")  # expect: agent-spawn-without-group


def shell_true_owned():
    return subprocess.Popen("setsid codex exec hi & pid=$!; trap 'kill -- -$pid' EXIT; wait $pid", shell=True)


def shell_true_waited_for():
    subprocess.run("setsid codex exec hi & pid=$!; trap 'kill -- -$pid' EXIT; wait $pid", shell=True)  # expect: agent-spawn-without-group
