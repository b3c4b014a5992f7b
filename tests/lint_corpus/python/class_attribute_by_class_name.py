"""A class attribute read through the class's own name (`Cfg.BIN`, `Agent.ARGV`), as
`self.BIN` is."""

import os
import signal
import subprocess


class Cfg:
    BIN = "opencode"
    ARGV = ["claude", "-p", "hi"]


def ask(q):
    return subprocess.Popen([Cfg.BIN, "run", q])  # expect: agent-spawn-without-group


def whole_argv():
    subprocess.Popen(Cfg.ARGV).wait()  # expect: agent-spawn-without-group


class Agent:
    BIN = "codex"

    def start(self, q):
        return subprocess.Popen([Agent.BIN, "exec", q])  # expect: agent-spawn-without-group


def grouped(q):
    p = subprocess.Popen([Cfg.BIN, "run", q], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


class Tools:
    BIN = "make"


def not_an_agent():
    subprocess.Popen([Tools.BIN, "test"]).wait()
