"""The program read from a dict display of constants by a constant key (`AGENTS["c"]` of
`AGENTS = {"c": "claude"}`), at module level or in the function."""

import os
import signal
import subprocess

AGENTS = {"c": "claude", "x": "codex", "g": "git"}
ARGVS = {"review": ["codex", "review"], "log": ["git", "log"]}


def ask():
    subprocess.Popen([AGENTS["c"], "-p"]).wait()  # expect: agent-spawn-without-group


def review(diff):
    subprocess.Popen(ARGVS["review"] + [diff]).wait()  # expect: agent-spawn-without-group


def local_table(q):
    tools = {"ask": "gemini"}
    subprocess.run([tools["ask"], "-p", q])  # expect: agent-spawn-without-group


# Not an agent: the key names another entry.
def history():
    subprocess.run([AGENTS["g"], "log"])


def history_argv():
    subprocess.run(ARGVS["log"])


# Compliant: both halves.
def ask_grouped(q):
    proc = subprocess.Popen([AGENTS["x"], "exec", q], start_new_session=True)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
