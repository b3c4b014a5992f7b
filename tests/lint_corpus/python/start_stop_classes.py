"""Two supervisor classes with methods of the same names: one class's group kill does
not count for the other's spawn."""

import os
import signal
import subprocess


class AgentProcess:
    def __init__(self, prompt):
        self.prompt = prompt
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["claude", "-p", self.prompt], start_new_session=True)

    def stop(self):
        if self.proc is not None:
            os.killpg(os.getpgid(self.proc.pid), signal.SIGTERM)


class LeakyProcess:
    def __init__(self, prompt):
        self.prompt = prompt

    def start(self):
        self.proc = subprocess.Popen(["claude", "-p", self.prompt], start_new_session=True)  # expect: agent-spawn-without-group

    def stop(self):
        self.proc.terminate()
        self.proc.kill()


class CallsItsOwnStop:
    def start(self, prompt):
        self.proc = subprocess.Popen(["codex", "exec", prompt], start_new_session=True)  # expect: agent-spawn-without-group
        try:
            self.proc.wait(timeout=60)
        finally:
            self.stop()

    def stop(self):
        self.proc.kill()
