"""Thin wrapper around the Claude Code CLI used by the nightly triage job."""

import shutil
import subprocess

claude = shutil.which("claude") or "/usr/local/bin/claude"


def ask(prompt: str, t: float = 600.0) -> str:
    """Run one headless prompt; give up after `t` seconds."""
    try:
        result = subprocess.run([claude, "-p", prompt], timeout=t, capture_output=True, text=True)  # expect: agent-spawn-without-group
    except subprocess.TimeoutExpired:
        return ""
    return result.stdout


def ask_json(prompt: str, t: float = 600.0) -> str:
    out = subprocess.check_output(  # expect: agent-spawn-without-group
        [claude, "-p", prompt, "--output-format", "json"],
        timeout=t,
        text=True,
    )
    return out


def git_head() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout
