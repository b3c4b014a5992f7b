"""A group kill through a name bound to the negative pid first."""

import os
import signal
import subprocess


def kill_via_pgid_var(prompt):
    p = subprocess.Popen(["codex", "exec", prompt], start_new_session=True)
    pgid = -p.pid
    try:
        p.wait(timeout=5)
    finally:
        os.kill(pgid, signal.SIGKILL)


def kill_via_positive_var(prompt):
    p = subprocess.Popen(["codex", "exec", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    pid = p.pid
    try:
        p.wait(timeout=5)
    finally:
        os.kill(pid, signal.SIGKILL)
