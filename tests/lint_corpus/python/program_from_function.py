"""A program named by a module function that only returns a constant is that constant."""

import os
import subprocess

CODEX = "codex"


def claude_bin():
    return "claude"


def codex_bin():
    # the one agent this tool runs
    return CODEX


def run(q):
    return subprocess.Popen([claude_bin(), "-p", q])  # expect: agent-spawn-without-group


def run_line(q):
    return subprocess.run(f"{codex_bin()} exec {q}", shell=True)  # expect: agent-spawn-without-group


def chosen_bin():
    name = os.environ.get("AGENT_BIN", "tool")
    return name


def either_bin(fast):
    if fast:
        return "claude"
    return "ruff"


def dynamic(q):
    subprocess.run([chosen_bin(), q])
    return subprocess.run([either_bin(True), q])
