"""`os.exec*` runs the agent in place of this process, in its group, and `os.spawn*`
take no option for a new session: each is a finding whose help names subprocess.Popen
with start_new_session=True (or `fleet run`), not a keyword they do not take."""

import os


def become_the_agent(task):
    os.execvp("codex", ["codex", "exec", task])  # expect: agent-spawn-without-group


def spawn_the_agent(task):
    return os.spawnvp(os.P_NOWAIT, "claude", ["claude", "-p", task])  # expect: agent-spawn-without-group


def become_fleet_run(task):
    os.execvp("fleet", ["fleet", "run", "--timeout", "600", "--", "claude", "-p", task])


def become_git(args):
    os.execvp("git", ["git", *args])
