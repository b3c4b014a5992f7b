"""`setsid` in front of an argv joined with `+` or built up with `extend`: setsid with
options and no command of its own runs what the right side names, as a wrapper does,
so the agent is seen and `--fork` (or setsid in a child that already leads a session)
is a finding whatever kills, as with the literal `["setsid", "--fork", "claude"]`."""

import os
import signal
import subprocess

AGENT = "gemini"


def forked_plus_local(q):
    argv = ["timeout", "--foreground", "60", "claude", "-p", q]
    p = subprocess.Popen(["setsid", "--fork"] + argv)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=60)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def forked_plus_constant(q):
    p = subprocess.Popen(["setsid", "-f"] + [AGENT, "-p", q])  # expect: agent-spawn-without-group
    try:
        p.wait()
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def setsid_in_a_session(q):
    argv = ["pnpm", "dlx", "@google/gemini-cli", "-p", q]
    p = subprocess.Popen(["setsid"] + argv, start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait()
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def setsid_nobody_kills(q):
    subprocess.Popen(["setsid"] + ["claude", "-p", q]).wait()  # expect: agent-spawn-without-group


def setsid_extended(q):
    cmd = ["setsid", "--wait"]
    cmd.extend(["codex", "exec", q])
    subprocess.Popen(cmd).wait()  # expect: agent-spawn-without-group


def setsid_plus_killed(q):
    argv = ["claude", "-p", q]
    p = subprocess.Popen(["setsid"] + argv)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)
