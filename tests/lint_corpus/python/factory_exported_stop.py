"""A factory for other modules, with the group kill it needs beside it: the module's own
cleanup for what it hands out."""

import os
import signal
import subprocess


def start_claude(prompt, workdir):
    return subprocess.Popen(["claude", "-p", prompt], cwd=workdir, start_new_session=True)


def kill_tree(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
