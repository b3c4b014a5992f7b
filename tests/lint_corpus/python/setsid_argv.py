"""`setsid` in front of the agent in an argv makes the new session that
`start_new_session=True` would: it is half the cleanup, and the group must still be killed."""

import os
import signal
import subprocess


def no_kill(q):
    subprocess.Popen(["setsid", "claude", "-p", q]).wait(timeout=60)  # expect: agent-spawn-without-group


def blocking(q):
    return subprocess.run(["setsid", "-w", "codex", "exec", q], timeout=600)  # expect: agent-spawn-without-group


def shell_string():
    os.system("setsid gemini -p 'summarise the log'")  # expect: agent-spawn-without-group


def leader_only(q):
    proc = subprocess.Popen(["/usr/bin/setsid", "aider", "--yes", "--message", q])  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        proc.kill()


def group_killed(q):
    proc = subprocess.Popen(["setsid", "claude", "-p", q])
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def tool(path):
    subprocess.Popen(["setsid", "gzip", path]).wait()
