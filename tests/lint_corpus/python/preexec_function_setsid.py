"""`preexec_fn` naming a function of the module that calls os.setsid() starts a new
session like `preexec_fn=os.setsid`; one that does not, does not."""

import os
import signal
import subprocess


def _child_preexec():
    os.setsid()


def _quiet_signals():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def spawn_claude_session(prompt, cwd=None):
    return subprocess.Popen(["claude", "-p", prompt], stdout=subprocess.PIPE, cwd=cwd, preexec_fn=_child_preexec)


def spawn_codex(prompt):
    return subprocess.Popen(["codex", "exec", prompt], preexec_fn=_quiet_signals)  # expect: agent-spawn-without-group


class SessionWrapper:
    def __init__(self, popen):
        self.popen = popen

    def terminate(self):
        os.killpg(os.getpgid(self.popen.pid), signal.SIGTERM)


def run(prompt):
    wrapper = SessionWrapper(spawn_claude_session(prompt))
    try:
        wrapper.popen.wait(timeout=300)
    finally:
        wrapper.terminate()


def fix(prompt):
    wrapper = SessionWrapper(spawn_codex(prompt))
    try:
        wrapper.popen.wait(timeout=300)
    finally:
        wrapper.terminate()
