"""An argv whose program is `su` runs its `-c`/`--command` value as a shell script, the
way an argv `sh -c` does: the user before it, `-` (a login shell) or the user after it
change nothing; `su` with no command, or a command that runs no agent, is no spawn of one."""

import os
import signal
import subprocess


def user_first(q):
    subprocess.Popen(["su", "agent", "-c", "claude -p hi"]).wait()  # expect: agent-spawn-without-group


def login_shell(q):
    subprocess.Popen(["su", "-", "agent", "-c", "codex exec hi"]).wait()  # expect: agent-spawn-without-group


def command_first(q):
    subprocess.Popen(["su", "-c", "claude -p hi", "agent"]).wait()  # expect: agent-spawn-without-group


def long_option(q):
    subprocess.run(["/bin/su", "agent", "--command=cd /repo && gemini -p hi"])  # expect: agent-spawn-without-group


def in_group(q):
    proc = subprocess.Popen(["su", "agent", "-c", "claude -p hi"], start_new_session=True)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def a_tool(q):
    subprocess.run(["su", "agent", "-c", "cargo build"])


def no_command(q):
    subprocess.run(["su", "agent"])
