"""A handler registered at module level without a name (a lambda), or a plain statement of
the module, holds the child kept in the module variable it uses, as a named handler would."""

import atexit
import os
import signal
import subprocess

_PROCS = []
_child = None
_runner = None
_leaky = None
_mine = None
_theirs = None


def start_listed(task):
    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    _PROCS.append(p)


signal.signal(signal.SIGTERM, lambda s, f: [os.killpg(p.pid, signal.SIGKILL) for p in _PROCS])


def start_global(task):
    global _child
    _child = subprocess.Popen(["codex", "exec", task], start_new_session=True)


atexit.register(lambda: _child and os.killpg(_child.pid, signal.SIGTERM))


def start_runner(task):
    global _runner
    _runner = subprocess.Popen(["gemini", "-p", task], start_new_session=True)
    _runner.wait()


def start_leaky(task):
    global _leaky
    _leaky = subprocess.Popen(["claude", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group


atexit.register(lambda: _leaky and _leaky.kill())


def start_mine(task):
    global _mine
    _mine = subprocess.Popen(["codex", "exec", task], start_new_session=True)  # expect: agent-spawn-without-group


atexit.register(lambda: _theirs and os.killpg(_theirs.pid, signal.SIGTERM))


try:
    start_runner("review")
finally:
    if _runner is not None:
        os.killpg(_runner.pid, signal.SIGKILL)


_first = None
_second = None


def start_first(task):
    global _first
    _first = subprocess.Popen(["claude", "-p", task], start_new_session=True)


def start_second(task):
    global _second
    _second = subprocess.Popen(["codex", "exec", task], start_new_session=True)  # expect: agent-spawn-without-group


atexit.register(lambda: (os.killpg(_first.pid, signal.SIGTERM), _second.kill()))


_one = None
_two = None


def start_one(task):
    global _one
    _one = subprocess.Popen(["gemini", "-p", task], start_new_session=True)


def start_two(task):
    global _two
    _two = subprocess.Popen(["claude", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group


def stop_both():
    os.killpg(_one.pid, signal.SIGKILL)
    _two.kill()


atexit.register(stop_both)
