"""An `sh -c` script inside an argv built from pieces: `+` of lists, `*ARGS` spliced in,
and a list grown by `append`/`extend`. The script is read as in a literal list."""

import os
import signal
import subprocess

SCRIPT = "codex exec hi"
ARGS = ["-c", "gemini -p hi"]


def plus():
    subprocess.Popen(["bash", "-c"] + [SCRIPT]).wait()  # expect: agent-spawn-without-group


def splat():
    subprocess.Popen(["bash", *ARGS]).wait()  # expect: agent-spawn-without-group


def plus_constant():
    subprocess.Popen(["bash"] + ARGS).wait()  # expect: agent-spawn-without-group


def extended():
    cmd = ["bash"]
    cmd.extend(ARGS)
    subprocess.Popen(cmd).wait()  # expect: agent-spawn-without-group


def appended():
    cmd = ["sh", "-c"]
    cmd.append("claude -p hi")
    subprocess.Popen(cmd).wait()  # expect: agent-spawn-without-group


def built_and_killed():
    cmd = ["bash", "-c"]
    cmd.append(SCRIPT)
    p = subprocess.Popen(cmd, start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def built_script_without_agent():
    subprocess.Popen(["bash", "-c"] + ["make test"]).wait()
