"""The program in a class attribute, read through self or cls."""

import os
import signal
import subprocess

CODEX = "codex"


class Runner:
    BIN = "claude"
    REVIEWER = CODEX

    def run(self, prompt):
        return subprocess.run([self.BIN, "-p", prompt], timeout=60)  # expect: agent-spawn-without-group

    @classmethod
    def review(cls, prompt):
        return subprocess.call([cls.REVIEWER, "exec", prompt])  # expect: agent-spawn-without-group

    def grouped(self, prompt):
        p = subprocess.Popen([self.BIN, "-p", prompt], start_new_session=True)
        try:
            p.wait(timeout=60)
        finally:
            os.killpg(p.pid, signal.SIGKILL)


class Tools:
    BIN = "ruff"

    def lint(self):
        subprocess.run([self.BIN, "check"])
