"""Both halves of the cleanup: a new session, and a kill of its whole group."""

import atexit
import os as o
import signal
import subprocess
from os import kill as send
from os import killpg
from subprocess import Popen


def finally_killpg(prompt):
    proc = Popen(["claude", "-p", prompt], start_new_session=True)
    try:
        return proc.wait(timeout=600)
    finally:
        killpg(proc.pid, signal.SIGKILL)


def negative_pid(prompt):
    child = subprocess.Popen(["codex", "exec", prompt], process_group=0)
    try:
        child.communicate(timeout=60)
    except BaseException:
        send(-child.pid, signal.SIGTERM)
        raise
    send(-child.pid, signal.SIGKILL)


def _reap(p):
    try:
        o.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def via_cleanup_function(prompt):
    worker = subprocess.Popen(["gemini", "-p", prompt], start_new_session=True)
    try:
        worker.wait(900)
    finally:
        _reap(worker)


def registered_at_exit(prompt):
    agent = subprocess.Popen(["qwen", "-p", prompt], preexec_fn=o.setsid)
    atexit.register(_reap, agent)
    return agent


class Session:
    def __init__(self, prompt):
        self.proc = subprocess.Popen(["opencode", "run", prompt], start_new_session=True)

    def __exit__(self, *exc):
        o.killpg(o.getpgid(self.proc.pid), signal.SIGKILL)


def leader_only(prompt):
    p = subprocess.Popen(["claude", "-p", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        p.kill()


def run_with_timeout(prompt):
    return subprocess.run(["claude", "-p", prompt], start_new_session=True, timeout=600)  # expect: agent-spawn-without-group


def gated_on_the_leader(prompt):
    p = subprocess.Popen(["aider", "--message", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        if p.poll() is None:
            o.killpg(p.pid, signal.SIGKILL)


def nobody_kills(prompt):
    p = subprocess.Popen(["goose", "run", "-t", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    return p.wait()


def terminate_without_group(prompt):
    p = subprocess.Popen(["crush", "run", prompt])  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.terminate()


def kill_of_a_positive_pid(prompt):
    p = subprocess.Popen(["amp", "-x", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    send(p.pid, signal.SIGKILL)


def kill_registered_at_exit(prompt):
    p = subprocess.Popen(["cursor-agent", "-p", prompt], start_new_session=True)
    atexit.register(killpg, p.pid, signal.SIGKILL)
    p.wait()


class Pool:
    def kill(self):
        o.killpg(self.pgid, signal.SIGKILL)


def same_name_other_object(prompt):
    # `proc.kill()` is the leader's kill, not Pool.kill.
    proc = subprocess.Popen(["droid", "exec", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    proc.wait(60)
    proc.kill()
