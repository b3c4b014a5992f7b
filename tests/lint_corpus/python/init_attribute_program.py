"""The program kept on the object by `__init__` (`self.BIN = "claude"`, `self.bin =
shutil.which("codex")`) is followed like a class attribute."""

import os
import shutil
import signal
import subprocess


class Reviewer:
    def __init__(self, model):
        self.BIN = "claude"
        self.bin = shutil.which("codex") or "codex"
        self.model = model

    def review(self, diff):
        return subprocess.run([self.BIN, "-p", diff, "--model", self.model], timeout=60)  # expect: agent-spawn-without-group

    def fix(self, task):
        return subprocess.run([self.bin, "exec", task], timeout=600)  # expect: agent-spawn-without-group

    def fix_in_group(self, task):
        proc = subprocess.Popen([self.bin, "exec", task], start_new_session=True)
        try:
            return proc.wait(timeout=600)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)


class Formatter:
    def __init__(self):
        self.bin = shutil.which("black")

    def format(self, path):
        return subprocess.run([self.bin, path], timeout=60)
