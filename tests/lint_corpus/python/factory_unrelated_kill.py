"""A factory nobody in this module calls (API for others) whose module holds one group
kill: the one ending another spawn's own child. That kill is not the factory's."""

import os
import signal
import subprocess


def start_qwen(prompt):
    return subprocess.Popen(["qwen", "-p", prompt], start_new_session=True)  # expect: agent-spawn-without-group


def review(diff):
    proc = subprocess.Popen(["codex", "review", diff], start_new_session=True)
    try:
        return proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
