"""Every agent run goes through `fleet run`, which owns the process group."""

import subprocess

FLEET = ["fleet", "run", "--timeout", "30m", "--"]


def run_agent(agent: str, prompt: str) -> int:
    return subprocess.call(FLEET + [agent, "-p", prompt])


def run_claude(prompt: str) -> subprocess.CompletedProcess:
    return subprocess.run(["fleet", "run", "--", "claude", "-p", prompt], capture_output=True, text=True)


def run_codex(prompt: str) -> subprocess.Popen:
    return subprocess.Popen(["fleet", "run", "--", "codex", "exec", prompt])
