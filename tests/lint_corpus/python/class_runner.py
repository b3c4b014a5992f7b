from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field

CODEX = "codex"


@dataclass
class Job:
    prompt: str
    timeout: float = 1200.0
    env: dict[str, str] = field(default_factory=dict)


class Runner:
    def __init__(self, workdir: str) -> None:
        self.workdir = workdir

    def run(self, job: Job) -> int:
        proc = subprocess.Popen(  # expect: agent-spawn-without-group
            [CODEX, "exec", "--skip-git-repo-check", job.prompt],
            cwd=self.workdir,
            env={**os.environ, **job.env},
        )
        try:
            return proc.wait(timeout=job.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()

    def run_grouped(self, job: Job) -> int:
        proc = subprocess.Popen(
            [CODEX, "exec", job.prompt],
            cwd=self.workdir,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=job.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            return proc.wait()

    def diff(self) -> str:
        return subprocess.run(["git", "diff"], cwd=self.workdir, capture_output=True, text=True).stdout
