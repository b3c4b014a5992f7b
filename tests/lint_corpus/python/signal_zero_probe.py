"""Signal 0 only asks whether the group is there: os.killpg(pgid, 0) kills nothing."""

import os
import signal
import subprocess


def probed_then_leader_only(task):
    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, 0)
        p.kill()


def probed_then_killed(task):
    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        try:
            os.killpg(p.pid, 0)
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
