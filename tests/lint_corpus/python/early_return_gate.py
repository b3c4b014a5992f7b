"""A group kill after `if <the leader has exited>: return` never runs when the leader
exits first: exactly when its helpers are orphaned. A guard on the handle alone is fine."""

import os
import signal
import subprocess


def run_script_as_subprocess(prompt):
    proc = subprocess.Popen(["claude", "-p", prompt], preexec_fn=os.setsid, stdout=subprocess.DEVNULL)  # expect: agent-spawn-without-group
    return proc


def ctrl_c_subprocess(proc):
    if proc.poll() is not None:
        return
    os.killpg(os.getpgid(proc.pid), signal.SIGINT)


def main(prompt):
    proc = run_script_as_subprocess(prompt)
    try:
        proc.wait(timeout=600)
    finally:
        ctrl_c_subprocess(proc)


class Agent:
    def __init__(self):
        self.proc = None

    def start(self, task):
        self.proc = subprocess.Popen(["codex", "exec", task], start_new_session=True)

    def stop(self):
        if self.proc is None:
            return
        os.killpg(self.proc.pid, signal.SIGKILL)
