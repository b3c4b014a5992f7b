"""A module constant of Popen options changed at module level (key by key or through
`.update`) runs at import, before any function spreads it with `**`: the spawn starts
a new session. A change inside another function does not count for this one."""

import os
import signal
import subprocess

POPEN_KW = {"stdout": subprocess.PIPE}
POPEN_KW["start_new_session"] = True

UPDATED_KW = {"stdout": subprocess.PIPE}
UPDATED_KW.update(start_new_session=True)

LATER_KW = {"stdout": subprocess.PIPE}

PLAIN_KW = {"stdout": subprocess.PIPE}
PLAIN_KW["text"] = True


def enable_later():
    LATER_KW["start_new_session"] = True


def key_by_key(q):
    p = subprocess.Popen(["claude", "-p", q], **POPEN_KW)
    try:
        return p.communicate(timeout=60)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def updated(q):
    p = subprocess.Popen(["codex", "exec", q], **UPDATED_KW)
    try:
        return p.communicate(timeout=60)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def changed_elsewhere(q):
    return subprocess.run(["gemini", "-p", q], **LATER_KW)  # expect: agent-spawn-without-group


def other_key(q):
    return subprocess.run(["claude", "-p", q], **PLAIN_KW)  # expect: agent-spawn-without-group
