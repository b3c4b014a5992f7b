"""A wrapper and the agent it runs in different pieces of the argv (a list of wrapper
words, then the agent appended, extended or added with `+`) is still an agent run."""

import os
import signal
import subprocess

AGENT = "aider"


def appended(q):
    cmd = ["sudo", "-u", "agent"]
    cmd.append("codex")
    cmd.extend(["exec", q])
    subprocess.Popen(cmd).wait()  # expect: agent-spawn-without-group


def appended_in_group(q):
    cmd = ["sudo", "-u", "agent"]
    cmd.append("codex")
    cmd.extend(["exec", q])
    proc = subprocess.Popen(cmd, start_new_session=True)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def added():
    subprocess.Popen(["nice", "-n", "5"] + [AGENT, "--yes"]).wait()  # expect: agent-spawn-without-group


def added_in_group():
    proc = subprocess.Popen(["nice", "-n", "5"] + [AGENT, "--yes"], start_new_session=True)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def wrapper_of_a_tool(path):
    cmd = ["nice", "-n", "5"]
    cmd.append("gzip")
    subprocess.Popen(cmd + [path]).wait()


def long_wrapper_chain(q):
    subprocess.Popen(["sudo", "-u", "agent", "env", "A=1", "B=2", "nice", "-n", "5", "claude", "-p", q]).wait()  # expect: agent-spawn-without-group
