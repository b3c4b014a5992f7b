"""A class attribute inherited from a base class of the module, read as `self.BIN` in a
subclass (or through the subclass's name), a few levels up."""

import os
import signal
import subprocess


class Cfg:
    BIN = "codex"


class Runner(Cfg):
    def go(self):
        subprocess.Popen([self.BIN, "exec"]).wait()  # expect: agent-spawn-without-group


class Deeper(Runner):
    def go(self):
        subprocess.Popen([self.BIN, "exec"]).wait()  # expect: agent-spawn-without-group


def by_name():
    subprocess.Popen([Runner.BIN, "exec"]).wait()  # expect: agent-spawn-without-group


# Not an agent: the subclass sets its own.
class Git(Cfg):
    BIN = "git"

    def go(self):
        subprocess.run([self.BIN, "status"])


# Compliant: both halves.
class Grouped(Cfg):
    def go(self):
        proc = subprocess.Popen([self.BIN, "exec"], start_new_session=True)
        try:
            proc.wait(timeout=600)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
