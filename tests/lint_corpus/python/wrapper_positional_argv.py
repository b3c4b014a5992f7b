"""An argv whose wrapper takes a positional argument before the command (taskset's mask
or CPU list, chrt's priority) or an option with a separate value (`stdbuf -o L`) still
runs the agent in the caller's group, in one list or in pieces; a wrapper acting on a
running process (`taskset -p`) runs nothing."""

import os
import signal
import subprocess


def pinned(q):
    subprocess.Popen(["taskset", "-c", "0-3", "claude", "-p", q]).wait()  # expect: agent-spawn-without-group


def masked(q):
    return subprocess.run(["taskset", "0x3", "codex", "exec", q])  # expect: agent-spawn-without-group


def line_buffered(q):
    subprocess.Popen(["stdbuf", "-o", "L", "claude", "-p", q]).wait()  # expect: agent-spawn-without-group


def realtime(q):
    subprocess.Popen(["chrt", "-f", "10", "gemini", "-p", q]).wait()  # expect: agent-spawn-without-group


def awake(q):
    subprocess.Popen(["caffeinate", "-t", "3600", "aider", "--yes", "--message", q]).wait()  # expect: agent-spawn-without-group


def in_pieces(q):
    cmd = ["taskset", "-c", "1"]
    cmd.append("claude")
    subprocess.Popen(cmd + ["-p", q]).wait()  # expect: agent-spawn-without-group


def pinned_in_group(q):
    proc = subprocess.Popen(["taskset", "-c", "0-3", "claude", "-p", q], start_new_session=True)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def repin(pid):
    subprocess.run(["taskset", "-p", "0x3", str(pid)])


def pinned_tool(path):
    subprocess.run(["taskset", "-c", "0", "gzip", path])
