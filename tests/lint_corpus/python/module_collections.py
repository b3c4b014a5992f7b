"""A child put in a module-level dict or list is held by the module's functions that use it."""

import os
import signal
import subprocess

_PROCS = {}
_CHILDREN = []
_LEAKY = []


def start(name, task):
    _PROCS[name] = subprocess.Popen(["codex", "exec", task], start_new_session=True)


def stop_all():
    for p in _PROCS.values():
        os.killpg(p.pid, signal.SIGTERM)


def start_listed(task):
    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    _CHILDREN.append(p)


def stop_listed():
    for p in _CHILDREN:
        os.killpg(p.pid, signal.SIGKILL)


def start_leaky(task):
    p = subprocess.Popen(["gemini", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    _LEAKY.append(p)


def stop_leaky():
    for p in _LEAKY:
        p.kill()
