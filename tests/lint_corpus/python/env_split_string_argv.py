"""`env -S STRING` in an argv splits STRING into the command line env runs, in the
caller's group."""

import subprocess


def split(q):
    return subprocess.run(["env", "-S", "claude -p", q])  # expect: agent-spawn-without-group


def split_tool(path):
    return subprocess.run(["env", "-S", "gzip -9", path])
