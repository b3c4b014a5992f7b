"""os.spawn* take the mode first (os.P_NOWAIT): the program is their second argument."""

import os


def start(task):
    return os.spawnlp(os.P_NOWAIT, "claude", "claude", "-p", task)  # expect: agent-spawn-without-group


def start_v(task):
    return os.spawnvp(os.P_NOWAIT, "codex", ["codex", "exec", task])  # expect: agent-spawn-without-group


def other(task):
    # Not an agent: the mode is no program either.
    return os.spawnlp(os.P_WAIT, "git", "git", "status")
