"""`timeout --foreground` leaves the command in the caller's group (it then signals only
the command): an agent behind it is an agent run with no group; plain `timeout` puts
itself and the agent in a group of their own and signals all of it."""

import subprocess


def foreground(q):
    return subprocess.run(["timeout", "--foreground", "60", "claude", "-p", q])  # expect: agent-spawn-without-group


def foreground_with_signal(q):
    subprocess.Popen(["timeout", "-s", "KILL", "--foreground", "10m", "codex", "exec", q]).wait()  # expect: agent-spawn-without-group


def own_group(q):
    return subprocess.run(["timeout", "-k", "30", "60", "claude", "-p", q])
