"""Programs whose path is built by a path function: os.path.join, Path / "x", "/".join."""

import os
import signal
import subprocess
from pathlib import Path

BIN_DIR = "/opt/agents/bin"
CLAUDE_PARTS = [BIN_DIR, "claude"]


def os_path_join(q):
    return subprocess.Popen([os.path.join(BIN_DIR, "claude"), "-p", q])  # expect: agent-spawn-without-group


def path_division(q):
    return subprocess.Popen([str(Path(BIN_DIR) / "codex"), "exec", q])  # expect: agent-spawn-without-group


def home_division(q):
    return subprocess.Popen([Path.home() / ".local/bin/gemini", "-p", q])  # expect: agent-spawn-without-group


def slash_join(q):
    return subprocess.Popen(["/".join(CLAUDE_PARTS), "-p", q])  # expect: agent-spawn-without-group


def expanduser(q):
    return subprocess.Popen([os.path.expanduser("~/.local/bin/claude"), "-p", q])  # expect: agent-spawn-without-group


def resolved(q):
    return subprocess.Popen([Path("~/bin/claude").expanduser().resolve(), "-p", q])  # expect: agent-spawn-without-group


def joined_and_killed(q):
    p = subprocess.Popen([os.path.join(BIN_DIR, "claude"), "-p", q], start_new_session=True)
    try:
        return p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def joined_not_an_agent():
    return subprocess.run([os.path.join(BIN_DIR, "python3"), "-V"], timeout=10)


def joined_dynamic(tool):
    return subprocess.run([str(Path(BIN_DIR) / tool), "-V"], timeout=10)
