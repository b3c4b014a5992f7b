"""The `kill` program run with `str(-pid)` (or a name bound to a negative pid, or a `%`
template of one) kills the group, as `f"-{pid}"` does."""

import atexit
import os
import subprocess

CHILDREN = set()


def kill_in_finally(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        subprocess.run(["kill", "-TERM", str(-p.pid)])


def kill_proc(proc):
    subprocess.run(["kill", "-9", str(-proc.pid)])


def kill_all():
    for proc in CHILDREN:
        kill_proc(proc)


atexit.register(kill_all)


def start(q):
    proc = subprocess.Popen(["codex", "exec", q], process_group=0)
    CHILDREN.add(proc)
    return proc


def kill_bound_name(q):
    p = subprocess.Popen(["gemini", "-p", q], start_new_session=True)
    neg = -p.pid
    try:
        p.wait(timeout=600)
    finally:
        subprocess.call(["kill", "-s", "KILL", "--", str(neg)])


def kill_percent_template(q):
    p = subprocess.Popen(["aider", "--message", q], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.system("kill -9 -%d" % p.pid)


def kill_positive_only(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        subprocess.run(["kill", "-TERM", str(p.pid)])
