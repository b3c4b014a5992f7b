"""A child kept in a module variable (`global _proc`): the module's functions that use
the variable hold it, and one of them may kill its group."""

import os
import signal
import subprocess

_proc = None
_other = None


def start(prompt):
    global _proc
    _proc = subprocess.Popen(["claude", "-p", prompt], start_new_session=True)


def stop():
    if _proc is not None:
        os.killpg(_proc.pid, signal.SIGTERM)


def start_codex(prompt):
    global _other
    _other = subprocess.Popen(["codex", "exec", prompt], start_new_session=True)  # expect: agent-spawn-without-group
