"""Programs whose path is literal text around a constant: f-strings, `%`, `+`, `.format`."""

import os
import shlex
import signal
import subprocess

BIN_DIR = "/opt/agents/bin"
NAME = "claude"
D = "/opt/bin"


def f_string_dir(task):
    return subprocess.run([f"{BIN_DIR}/codex", "exec", task], timeout=900)  # expect: agent-spawn-without-group


def f_string_name(q):
    return subprocess.Popen([f"/opt/bin/{NAME}", "-p", q])  # expect: agent-spawn-without-group


def shlex_of_f_string():
    return subprocess.Popen(shlex.split(f"{D}/claude -p hi"))  # expect: agent-spawn-without-group


def percent_dir(q):
    return subprocess.Popen(["%s/claude" % BIN_DIR, "-p", q])  # expect: agent-spawn-without-group


def plus_dir(q):
    return subprocess.Popen([BIN_DIR + "/claude", "-p", q])  # expect: agent-spawn-without-group


def format_dir(q):
    return subprocess.Popen(["{}/gemini".format(BIN_DIR), "-p", q])  # expect: agent-spawn-without-group


def dynamic_dir_literal_agent(home, q):
    return subprocess.Popen([f"{home}/bin/claude", "-p", q])  # expect: agent-spawn-without-group


def grouped_and_killed(q):
    p = subprocess.Popen([f"{BIN_DIR}/codex", "exec", q], start_new_session=True)
    try:
        return p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def not_an_agent():
    return subprocess.run([f"{BIN_DIR}/python3", "-V"], timeout=10)


def dynamic_program(tool, q):
    return subprocess.run([f"{BIN_DIR}/{tool}", q], timeout=10)
