"""A new session passed through `**options`: a dict built in place, a module constant,
filled key by key, `update`/`setdefault`, or kept on the object. It counts as the first
half; the group kill is still needed."""

import os
import signal
import subprocess

SESSION = dict(start_new_session=True)
POPEN_KW = {"start_new_session": True, "stdout": subprocess.PIPE}


def built_in_place(prompt):
    opts = dict(start_new_session=True)
    proc = subprocess.Popen(["claude", "-p", prompt], **opts)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def module_constant(prompt):
    proc = subprocess.Popen(["codex", "exec", prompt], **SESSION)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def module_literal(prompt):
    proc = subprocess.Popen(["gemini", "-p", prompt], **POPEN_KW)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def filled_by_key(prompt):
    opts = {}
    opts["start_new_session"] = True
    proc = subprocess.Popen(["claude", "-p", prompt], **opts)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def updated(prompt):
    kwargs = {"cwd": "."}
    kwargs.update(start_new_session=True)
    proc = subprocess.Popen(["claude", "-p", prompt], **kwargs)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def defaulted(prompt, **kwargs):
    kwargs.setdefault("start_new_session", True)
    proc = subprocess.Popen(["aider", "--message", prompt], **kwargs)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def no_session(prompt):
    opts = dict(cwd=".")
    proc = subprocess.Popen(["claude", "-p", prompt], **opts)  # expect: agent-spawn-without-group
    proc.wait()


def session_nobody_kills(prompt):
    cmd = ["claude", "-p", prompt]
    opts = dict(start_new_session=True)
    return subprocess.Popen(cmd, **opts).wait()  # expect: agent-spawn-without-group


class Agent:
    def __init__(self):
        self.opts = dict(start_new_session=True, cwd=".")

    def start(self, prompt):
        self.proc = subprocess.Popen(["goose", "run", "-t", prompt], **self.opts)

    def stop(self):
        os.killpg(self.proc.pid, signal.SIGKILL)
