"""A group kill is gated on the leader being alive only in the branch that runs while it
is alive (`if p.poll() is None:`, the `else` of `is not None`), or after an exit taken
once it has exited. A kill in the branch that runs after it exited, or after an exit
taken while it is alive, reaches the group when the leader is gone: not gated."""

import os
import signal
import subprocess


def alive_branch(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    p.wait()
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)


def else_of_exited(q):
    p = subprocess.Popen(["codex", "exec", q], start_new_session=True)  # expect: agent-spawn-without-group
    p.wait()
    if p.poll() is not None:
        print("done")
    else:
        os.killpg(p.pid, signal.SIGKILL)


def exited_then_return(q):
    p = subprocess.Popen(["gemini", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    p.wait()
    if p.returncode is not None:
        return
    os.killpg(p.pid, signal.SIGKILL)


def named_alive(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    p.wait()
    running = p.poll() is None
    if not running:
        print("done")
    else:
        os.killpg(p.pid, signal.SIGKILL)


def exited_branch(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    p.wait()
    if p.poll() is not None:
        os.killpg(p.pid, signal.SIGKILL)


def returncode_set(q):
    p = subprocess.Popen(["codex", "exec", q], start_new_session=True)
    p.wait()
    if p.returncode is not None:
        os.killpg(p.pid, signal.SIGTERM)


def else_of_alive(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    p.wait()
    if p.poll() is None:
        print("still running?")
    else:
        os.killpg(p.pid, signal.SIGKILL)


def both_branches(q):
    p = subprocess.Popen(["gemini", "-p", q], start_new_session=True)
    p.wait()
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGTERM)
    else:
        os.killpg(p.pid, signal.SIGKILL)


def reap(p):
    if p.poll() is None:
        return False
    os.killpg(p.pid, signal.SIGKILL)
    return True


def alive_then_return(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    p.wait()
    reap(p)


def named_exited(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    p.wait()
    running = p.poll() is None
    if not running:
        os.killpg(p.pid, signal.SIGKILL)
