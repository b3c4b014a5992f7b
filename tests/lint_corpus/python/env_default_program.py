import os
import subprocess

AGENT_BIN = os.environ.get("AGENT_BIN", "opencode")
MODEL = os.getenv("AGENT_MODEL", "anthropic/claude-sonnet-4")
EDITOR = os.environ.get("EDITOR", "vim")


def solve(issue: str, timeout: int = 1800) -> int:
    proc = subprocess.Popen([AGENT_BIN, "run", "--model", MODEL, issue])  # expect: agent-spawn-without-group
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        return -1


def solve_grouped(issue: str) -> int:
    proc = subprocess.Popen([AGENT_BIN, "run", issue], preexec_fn=os.setsid)  # expect: agent-spawn-without-group
    return proc.wait()


def edit(path: str) -> None:
    subprocess.run([EDITOR, path])
