"""Programs through path helpers (`os.path.expanduser`, `os.path.join`, `Path /`) and
parameter defaults are followed; a parameter without a default stays out of reach."""

import os
import signal
import subprocess
from pathlib import Path

CLAUDE_BIN = os.path.expanduser("~/.claude/local/claude")
CODEX = os.path.join(os.environ.get("HOME", "/root"), ".local", "bin", "codex")
GEMINI = Path.home() / ".npm-global/bin/gemini"


def ask(prompt, timeout=120):
    return subprocess.run([CLAUDE_BIN, "-p", prompt], capture_output=True, timeout=timeout)  # expect: agent-spawn-without-group


def fix(task):
    return subprocess.call([CODEX, "exec", task])  # expect: agent-spawn-without-group


def triage(issue):
    return subprocess.Popen([str(GEMINI), "-p", issue])  # expect: agent-spawn-without-group


def review(diff, program="aider"):
    return subprocess.run([program, "--message", diff], timeout=600)  # expect: agent-spawn-without-group


def review_in_group(diff, program="aider"):
    proc = subprocess.Popen([program, "--message", diff], start_new_session=True)
    try:
        return proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def run_tool(program, *args):
    return subprocess.run([program, *args], timeout=60)
