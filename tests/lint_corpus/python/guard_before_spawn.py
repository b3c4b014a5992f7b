"""An `if <the leader has exited>: return` BEFORE the spawn asks about an earlier
process (an "already running" guard): the group kill after the spawn still runs. The
same `if` between the spawn and the kill gates the kill on the leader."""

import os
import signal
import subprocess


class Agent:
    def __init__(self):
        self.proc = None

    def run(self, q):
        if self.proc is not None and self.proc.poll() is None:
            return
        self.proc = subprocess.Popen(["claude", "-p", q], start_new_session=True)
        try:
            self.proc.wait(timeout=600)
        finally:
            os.killpg(self.proc.pid, signal.SIGKILL)


def run_after(q, old):
    if old.poll() is None:
        return
    p = subprocess.Popen(["codex", "exec", q], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def run_gated(q):
    p = subprocess.Popen(["amp", "-x", q], start_new_session=True)  # expect: agent-spawn-without-group
    p.wait(timeout=600)
    if p.poll() is not None:
        return
    os.killpg(p.pid, signal.SIGKILL)
