# A `bash -c` script is checked as a shell script of its own: one that starts its
# agent in a session and kills that group itself needs no group from the Popen that
# starts the shell. One that never kills the session it starts is still a finding.
import subprocess


def owned():
    return subprocess.Popen(["bash", "-c", "setsid claude -p x & pid=$!; sleep 60; kill -- -$pid"])


def owned_with_trap():
    subprocess.run(["sh", "-ec", "setsid codex exec hi & pid=$!; trap 'kill -- -$pid' EXIT; wait $pid"])


def never_killed():
    return subprocess.Popen(["bash", "-c", "setsid claude -p x & sleep 60"])  # expect: agent-spawn-without-group


def leader_only():
    return subprocess.Popen(["bash", "-c", "setsid gemini -p x & pid=$!; sleep 60; kill $pid"])  # expect: agent-spawn-without-group
