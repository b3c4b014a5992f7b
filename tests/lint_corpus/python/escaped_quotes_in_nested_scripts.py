"""A nested `-c` script quoted with escaped quotes: the string's value is what the shell
reads (`bash -c "claude -p hi"`), not its source text with the backslashes."""

import os
import subprocess


def double_quoted():
    os.system("bash -c \"claude -p hi\"")  # expect: agent-spawn-without-group


def single_quoted():
    os.system('bash -c \'codex exec hi\'')  # expect: agent-spawn-without-group


def in_argv():
    subprocess.Popen(["sh", "-c", "sh -c \"claude\""]).wait()  # expect: agent-spawn-without-group


def four_deep():
    subprocess.Popen(["sh", "-c", "sh -c \"bash -c 'sh -c claude'\""]).wait()  # expect: agent-spawn-without-group


def only_echoed():
    os.system("bash -c \"echo 'claude -p hi'\"")


def only_printed():
    subprocess.Popen(["sh", "-c", "sh -c \"printf '%s\\n' codex\""]).wait()
