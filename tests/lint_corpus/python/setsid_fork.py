"""`setsid --fork`, or `setsid` in a child that already leads a group
(`start_new_session=True`, `process_group=0`), forks: the session is a grandchild's, and
`os.killpg(proc.pid, ...)` reaches nothing. Plain `setsid` execs in place: the pid is the
session's id."""

import os
import signal
import subprocess


def forked(q):
    proc = subprocess.Popen(["setsid", "--fork", "claude", "-p", q])  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def forked_cluster(q):
    proc = subprocess.Popen(["setsid", "-wf", "codex", "exec", q])  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def setsid_in_a_session_leader(q):
    proc = subprocess.Popen(["setsid", "claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def setsid_in_a_group_leader(q):
    proc = subprocess.Popen(["setsid", "gemini", "-p", q], process_group=0)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def in_place_group_killed(q):
    proc = subprocess.Popen(["setsid", "-w", "claude", "-p", q])
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def forked_tool(path):
    subprocess.Popen(["setsid", "--fork", "gzip", path]).wait()
