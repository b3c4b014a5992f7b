"""A group kill after `if <the leader has exited>: raise` is gated like one after
`return`, and so is one inside `if alive:` when `alive = proc.poll() is None`: neither
runs when the leader exits first. A name that asks nothing about the leader, or a
`raise` on the handle alone, gates nothing."""

import os
import signal
import subprocess


def raise_gate(task):
    proc = subprocess.Popen(["claude", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if proc.poll() is not None:
        raise RuntimeError("the agent is done")
    os.killpg(proc.pid, signal.SIGKILL)


def variable_gate(task):
    proc = subprocess.Popen(["codex", "exec", task], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    alive = proc.poll() is None
    if alive:
        os.killpg(proc.pid, signal.SIGKILL)


def exited_variable_raise(task):
    proc = subprocess.Popen(["gemini", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    proc.wait(timeout=5)
    exited = proc.returncode is not None
    if exited:
        raise RuntimeError("exited")
    os.killpg(proc.pid, signal.SIGKILL)


def raise_on_the_handle(task):
    proc = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    if proc.pid is None:
        raise RuntimeError("no pid")
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def unrelated_flag(task, verbose):
    proc = subprocess.Popen(["codex", "exec", task], start_new_session=True)
    loud = verbose and task
    try:
        proc.wait(timeout=600)
    finally:
        if loud:
            print("killing", proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)


def already_running(task, previous):
    if previous.poll() is None:
        raise RuntimeError("an agent is already running")
    proc = subprocess.Popen(["gemini", "-p", task], start_new_session=True)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
