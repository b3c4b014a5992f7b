"""Each spawn needs its own group kill: `os.killpg(a.pid, ...)` ends `a`'s group, not
`b`'s, in the function that starts both (a pgid taken from `a` too), and `self.a`'s in
every method of the class. A kill that names neither child (a loop over both, a
helper's parameter) counts for each of them."""

import os
import signal
import subprocess


def two_agents_one_killed(task):
    a = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    b = subprocess.Popen(["codex", "exec", task], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        a.wait(timeout=60)
        b.wait(timeout=60)
    finally:
        os.killpg(a.pid, signal.SIGKILL)
        b.kill()


def pgid_of_the_other(task):
    first = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    second = subprocess.Popen(["gemini", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    pgid = os.getpgid(first.pid)
    try:
        second.wait(timeout=60)
    finally:
        os.killpg(pgid, signal.SIGKILL)


class Pair:
    def start(self, task):
        self.writer = subprocess.Popen(["claude", "-p", task], start_new_session=True)
        self.reviewer = subprocess.Popen(["codex", "exec", task], start_new_session=True)  # expect: agent-spawn-without-group

    def stop(self):
        os.killpg(self.writer.pid, signal.SIGKILL)
        self.reviewer.terminate()


def both_killed(task):
    a = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    b = subprocess.Popen(["codex", "exec", task], start_new_session=True)
    try:
        a.wait(timeout=60)
        b.wait(timeout=60)
    finally:
        os.killpg(a.pid, signal.SIGKILL)
        os.killpg(b.pid, signal.SIGKILL)


def killed_in_a_loop(task):
    a = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    b = subprocess.Popen(["gemini", "-p", task], start_new_session=True)
    try:
        a.wait(timeout=60)
        b.wait(timeout=60)
    finally:
        for proc in (a, b):
            os.killpg(proc.pid, signal.SIGKILL)


def kill_tree(proc):
    os.killpg(proc.pid, signal.SIGKILL)


def killed_by_a_helper(task):
    a = subprocess.Popen(["claude", "-p", task], start_new_session=True)
    b = subprocess.Popen(["codex", "exec", task], start_new_session=True)
    try:
        b.wait(timeout=60)
    finally:
        kill_tree(a)
        kill_tree(b)
