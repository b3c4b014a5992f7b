"""An agent named right after a `\n` or `\t` escape in a shell string is still that
string's command: the prefilter reads the escape as a word's end."""

import os
import subprocess


def after_newline():
    os.system("cd /repo\nclaude -p hi")  # expect: agent-spawn-without-group


def after_tab():
    subprocess.Popen(["bash", "-c", "set -e;\tcodex exec hi"]).wait()  # expect: agent-spawn-without-group


def a_tool_after_newline():
    os.system("cd /repo\nmake test")
