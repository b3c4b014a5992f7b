import os
import signal
import subprocess
import time


class AgentProcess:
    """Runs codex in its own session, but kills the group only while the leader runs:
    when codex exits first, its helpers are left behind."""

    def __init__(self, prompt: str, workdir: str) -> None:
        self.proc = subprocess.Popen(  # expect: agent-spawn-without-group
            ["codex", "exec", "--full-auto", prompt],
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            if time.monotonic() > deadline:
                os.killpg(self.proc.pid, signal.SIGTERM)
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                break
            time.sleep(0.2)
        return self.proc.wait()


def run_claude(prompt: str) -> subprocess.CompletedProcess:
    return subprocess.run(["claude", "-p", prompt], start_new_session=True, timeout=900)  # expect: agent-spawn-without-group


def run_gemini_in_group(prompt: str) -> subprocess.Popen:
    return subprocess.Popen(["gemini", "-p", prompt], process_group=0)  # expect: agent-spawn-without-group


def run_aider(files: list[str]) -> int:
    return subprocess.call(["aider", "--yes", *files], preexec_fn=os.setsid)  # expect: agent-spawn-without-group
