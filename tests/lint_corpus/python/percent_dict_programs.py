"""A `%` template filled from a dict of constants names its program like `%s` does."""

import os
import subprocess

CLAUDE = "claude"
TOOLS = {"bin": "ruff"}


def shell_line(task):
    return os.system("%(bin)s -p %(task)s" % {"bin": CLAUDE, "task": task})  # expect: agent-spawn-without-group


def argv_program(task):
    return subprocess.run(["%(dir)s/codex" % {"dir": "/opt/bin"}, "exec", task])  # expect: agent-spawn-without-group


def a_tool():
    return os.system("%(bin)s check ." % TOOLS)


def another_key(task):
    return os.system("%(tool)s %(agent)s" % {"tool": "echo", "agent": CLAUDE})
