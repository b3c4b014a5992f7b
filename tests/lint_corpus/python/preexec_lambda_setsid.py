"""`preexec_fn=lambda: os.setsid()` starts a session like `preexec_fn=os.setsid`."""

import os
import signal
import subprocess


def lambda_setsid_killed(prompt):
    p = subprocess.Popen(["gemini", "-p", prompt], preexec_fn=lambda: os.setsid())
    try:
        return p.wait(timeout=300)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def lambda_setsid_never_killed(prompt):
    p = subprocess.Popen(["gemini", "-p", prompt], preexec_fn=lambda: os.setpgrp())  # expect: agent-spawn-without-group
    p.wait()


def lambda_other(prompt):
    return subprocess.Popen(["gemini", "-p", prompt], preexec_fn=lambda: os.nice(5))  # expect: agent-spawn-without-group
