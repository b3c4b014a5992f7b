"""`.format` of constants with literal text before the placeholder: the template is
filled whole, so a shell string is read as a script and a path keeps its file name."""

import os
import shlex
import signal
import subprocess

AGENT = "aider"
CLAUDE = "claude"
BIN_DIR = "/opt/bin"


def shell_string(q):
    subprocess.run("cd /r && {} --yes".format(AGENT), shell=True, timeout=60)  # expect: agent-spawn-without-group


def keyword_field():
    os.system("cd /r && {bin} -p hi".format(bin=CLAUDE))  # expect: agent-spawn-without-group


def path_of_two_values():
    p = subprocess.Popen(["{}/{}".format(BIN_DIR, CLAUDE), "-p"])  # expect: agent-spawn-without-group
    p.wait()


def shlex_of_a_wrapper(q):
    subprocess.Popen(shlex.split("nice -n 5 {} exec".format("codex")) + [q]).wait()  # expect: agent-spawn-without-group


def spec_and_conversion():
    os.system("exec {0!s:>4} --yes".format(AGENT))  # expect: agent-spawn-without-group


def escaped_braces_are_text():
    os.system("echo {{}} {}".format(AGENT))


def grouped_and_killed(q):
    p = subprocess.Popen(shlex.split("/usr/bin/env {} -p".format(CLAUDE)) + [q], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(p.pid, signal.SIGKILL)


def a_field_out_of_reach(cfg):
    os.system("cd /r && {0.bin} -p hi".format(cfg))
