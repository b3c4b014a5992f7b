# `sys.executable` is the interpreter running this module: `[sys.executable, "-m",
# "aider"]` is `python -m aider`, the aider agent.
import subprocess
import sys
from sys import executable


def module_by_the_interpreter():
    subprocess.run([sys.executable, "-m", "aider", "--yes"])  # expect: agent-spawn-without-group


def module_by_the_imported_name(message):
    subprocess.Popen([executable, "-u", "-m", "aider.main", "-m", message]).wait()  # expect: agent-spawn-without-group


def module_in_a_shell_string():
    subprocess.run(f"{sys.executable} -m aider --yes", shell=True)  # expect: agent-spawn-without-group


def other_module_by_the_interpreter():
    subprocess.run([sys.executable, "-m", "pytest", "-k", "aider"])


def script_by_the_interpreter():
    subprocess.run([sys.executable, "aider_helper.py"])


def code_by_the_interpreter():
    subprocess.run([sys.executable, "-c", "print('aider')"])


def module_in_a_group(task):
    import os
    import signal

    p = subprocess.Popen([sys.executable, "-m", "aider", "-m", task], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)
