# A child bound to a local, then to a module variable declared `global` (`p =
# Popen(...)`, `_proc = p`), is held by the module variable: the module's functions
# using it (an atexit handler) kill its group.
import atexit
import os
import signal
import subprocess

_proc = None
_other = None


def start(q):
    global _proc
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    _proc = p


def _cleanup():
    if _proc:
        os.killpg(_proc.pid, signal.SIGKILL)


atexit.register(_cleanup)


def start_unkilled(q):
    global _other
    p = subprocess.Popen(["codex", "exec", q], start_new_session=True)  # expect: agent-spawn-without-group
    _other = p


def _leader_only():
    if _other:
        _other.kill()


atexit.register(_leader_only)
