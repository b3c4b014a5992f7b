"""Pid 0 is the caller's own group: a child started with start_new_session=True has left it."""

import os
import signal
import subprocess


def killpg_zero(task):
    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(0, signal.SIGKILL)


def kill_minus_zero(task):
    p = subprocess.Popen(["codex", "exec", task], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.kill(-0, signal.SIGKILL)


def kill_zero(task):
    p = subprocess.Popen(["gemini", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.kill(0, signal.SIGTERM)


def killpg_of_its_group(task):
    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(os.getpgid(p.pid), signal.SIGKILL)


def killpg_zero_at_exit(task):
    import atexit

    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    atexit.register(os.killpg, 0, signal.SIGKILL)
    return p


def killpg_its_group_at_exit(task):
    import atexit

    p = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    atexit.register(os.killpg, p.pid, signal.SIGKILL)
    return p
