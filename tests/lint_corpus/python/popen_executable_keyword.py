# `executable=` names the program a spawn runs; argv[0] is only the name it is given.
# With `shell=True` it replaces the shell instead.
import subprocess


def renamed():
    subprocess.Popen(["agent", "-p", "x"], executable="/usr/local/bin/claude").wait()  # expect: agent-spawn-without-group


def renamed_shell():
    subprocess.run("echo hi", shell=True, executable="/bin/bash")


def argv_zero_only():
    subprocess.run(["claude-wrapper-name", "x"], executable="/usr/bin/make")
