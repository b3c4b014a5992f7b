"""A call inside the factory's own body (a retry calling itself) is no caller: a factory
with no other caller is API for other modules, and a group kill must be offered beside
it."""

import os
import signal
import subprocess


def spawn_claude(prompt, attempt=0):
    try:
        return subprocess.Popen(["claude", "-p", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    except OSError:
        if attempt < 3:
            return spawn_claude(prompt, attempt + 1)
        raise
