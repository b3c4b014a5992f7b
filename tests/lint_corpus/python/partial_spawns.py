"""A name bound to functools.partial(subprocess.Popen, **kw) is Popen with those keywords."""

import functools
import os
import signal
import subprocess
from functools import partial

popen_detached = functools.partial(subprocess.Popen, start_new_session=True)
run_quiet = partial(subprocess.run, capture_output=True)


def detached_nobody_kills(q):
    p = popen_detached(["claude", "-p", q])  # expect: agent-spawn-without-group
    p.wait()


def no_session(q):
    return run_quiet(["codex", "exec", q])  # expect: agent-spawn-without-group


def local_partial(q):
    spawn = partial(subprocess.Popen, stdout=subprocess.PIPE)
    return spawn(["gemini", "-p", q])  # expect: agent-spawn-without-group


def detached_and_killed(q):
    p = popen_detached(["claude", "-p", q])
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def a_tool():
    return run_quiet(["ruff", "check", "."])
