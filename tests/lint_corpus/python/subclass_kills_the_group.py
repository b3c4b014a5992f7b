# A child stored on the object (`self.proc = Popen(...)`) in a base class is held by the
# methods of the module's subclasses that name the same attribute: their group kill ends it.
import os
import signal
import subprocess


class Base:
    def start(self):
        self.proc = subprocess.Popen(["claude", "-p", "x"], start_new_session=True)


class Managed(Base):
    def stop(self):
        os.killpg(self.proc.pid, signal.SIGKILL)


class Root:
    def start(self, task):
        self.child = subprocess.Popen(["codex", "exec", task], start_new_session=True)


class Middle(Root):
    pass


class Leaf(Middle):
    def close(self):
        self._end()

    def _end(self):
        os.killpg(os.getpgid(self.child.pid), signal.SIGTERM)


class Other:
    def start(self):
        self.proc = subprocess.Popen(["gemini", "-p", "x"], start_new_session=True)  # expect: agent-spawn-without-group


class Unrelated:
    def stop(self):
        os.killpg(self.proc.pid, signal.SIGKILL)


class Spawner:
    def start(self):
        self.agent = subprocess.Popen(["claude", "-p", "x"], start_new_session=True)  # expect: agent-spawn-without-group


class KillsAnotherAttribute(Spawner):
    def stop(self):
        os.killpg(self.helper.pid, signal.SIGKILL)


class LeaderOnly:
    def start(self):
        self.proc = subprocess.Popen(["claude", "-p", "x"], start_new_session=True)  # expect: agent-spawn-without-group


class LeaderOnlyChild(LeaderOnly):
    def stop(self):
        self.proc.kill()
