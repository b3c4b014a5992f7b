"""A self-retrying factory with a group kill offered beside it: the API hands the kill
out with the child."""

import os
import signal
import subprocess


def spawn_codex(prompt, attempt=0):
    try:
        return subprocess.Popen(["codex", "exec", prompt], start_new_session=True)
    except OSError:
        if attempt < 3:
            return spawn_codex(prompt, attempt + 1)
        raise


def stop(proc):
    os.killpg(proc.pid, signal.SIGKILL)
