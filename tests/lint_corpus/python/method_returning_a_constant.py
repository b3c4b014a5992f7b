# A method of the class whose body only returns a constant (`def bin(self): return
# "claude"`) is that constant where `self.bin()` / `cls.bin()` is the program.
import os
import signal
import subprocess

CODEX = "codex"


class Runner:
    def bin(self):
        return "opencode"

    def go(self, task):
        subprocess.Popen([self.bin(), "run", task]).wait()  # expect: agent-spawn-without-group


class ConstantRunner:
    @classmethod
    def binary(cls):
        return CODEX

    @classmethod
    def go(cls, task):
        subprocess.run([cls.binary(), "exec", task])  # expect: agent-spawn-without-group


class StaticRunner:
    @staticmethod
    def program():
        # the agent
        return "claude"

    def go(self, task):
        subprocess.run(f"{self.program()} -p {task}", shell=True)  # expect: agent-spawn-without-group


class ParameterRunner:
    def bin(self, name):
        return name

    def go(self, task):
        subprocess.run([self.bin("claude"), "-p", task])


class ToolRunner:
    def bin(self):
        return "ls"

    def go(self):
        subprocess.run([self.bin(), "-l"])


class MoreThanAReturn:
    def bin(self):
        os.environ.setdefault("X", "1")
        return "claude"

    def go(self):
        subprocess.run([self.bin(), "-p", "hi"])


class GroupedRunner:
    def bin(self):
        return "claude"

    def go(self, task):
        p = subprocess.Popen([self.bin(), "-p", task], start_new_session=True)
        try:
            p.wait(timeout=600)
        finally:
            os.killpg(p.pid, signal.SIGKILL)


class PropertyRunner:
    @property
    def program(self):
        return CODEX

    def go(self, task):
        subprocess.run([self.program, "exec", task])  # expect: agent-spawn-without-group


class PropertyCalledAsMethod:
    def program(self):
        return "claude"

    def go(self, task):
        # `self.program` is the bound method here, not what it returns.
        subprocess.run([str(self.program), "-p", task])
