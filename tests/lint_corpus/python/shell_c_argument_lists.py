"""A shell's `-c` script (and `env`) in an argument list: the script's program is the one run."""

import os
import signal
import subprocess

SCRIPT = "cd /work && codex exec --full-auto fix"


def bash_c():
    subprocess.run(["bash", "-c", "claude -p hi"])  # expect: agent-spawn-without-group


def bash_lc():
    subprocess.run(["bash", "-lc", "claude -p hi"])  # expect: agent-spawn-without-group


def sh_ec_constant():
    return subprocess.Popen(["/bin/sh", "-ec", SCRIPT])  # expect: agent-spawn-without-group


def env_program(q):
    return subprocess.Popen(["/usr/bin/env", "gemini", "-p", q])  # expect: agent-spawn-without-group


def env_with_assignment(q):
    return subprocess.Popen(["env", "NO_COLOR=1", "claude", "-p", q])  # expect: agent-spawn-without-group


def shell_line():
    subprocess.run("bash -lc 'claude -p hi'", shell=True)  # expect: agent-spawn-without-group


def shell_line_not_an_agent():
    subprocess.run("bash -lc 'make test'", shell=True)


def bash_lc_grouped():
    p = subprocess.Popen(["bash", "-lc", "claude -p hi"], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def bash_c_not_an_agent():
    subprocess.run(["bash", "-c", "make test"])


def bash_c_timeout_signals_its_group():
    subprocess.run(["bash", "-lc", "timeout 600 claude -p hi"])


def bash_c_through_fleet_run():
    subprocess.run(["bash", "-c", "fleet run --timeout 10m -- claude -p hi"])


def env_not_an_agent():
    subprocess.run(["/usr/bin/env", "python3", "-V"])
