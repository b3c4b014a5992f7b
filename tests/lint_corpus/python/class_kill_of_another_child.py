"""A method's group kill counts for a spawn in another method only when the object can
hold that child (stored on it, handed to a method): a child kept in a local, or handed
to a caller that keeps it in a local, is not the one `close()` kills."""

import os
import signal
import subprocess


class Reviewer:
    def __init__(self):
        self.server = subprocess.Popen(["python3", "-m", "http.server"], start_new_session=True)

    def _spawn(self, prompt):
        return subprocess.Popen(["claude", "-p", prompt], stdout=subprocess.PIPE, start_new_session=True)  # expect: agent-spawn-without-group

    def ask(self, prompt):
        proc = self._spawn(prompt)
        out, _ = proc.communicate(timeout=60)
        return out

    def review(self, diff):
        proc = subprocess.Popen(["codex", "review", diff], start_new_session=True)  # expect: agent-spawn-without-group
        return proc.wait(timeout=600)

    def close(self):
        os.killpg(self.server.pid, signal.SIGTERM)


class Pool:
    def __init__(self):
        self.children = []

    def _track(self, proc):
        self.children.append(proc)

    def run(self, task):
        proc = subprocess.Popen(["gemini", "-p", task], start_new_session=True)
        self._track(proc)
        return proc.wait()

    def start(self, task):
        proc = subprocess.Popen(["aider", "--message", task], start_new_session=True)
        self.current = proc

    def close(self):
        for proc in self.children + [self.current]:
            os.killpg(proc.pid, signal.SIGKILL)
