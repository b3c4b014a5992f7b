# A character written by its code in a string (`\x20`, `\u0020`, `\040`) is that
# character: "cd /r;\x20aider" runs `aider`, though the name follows a digit in the source.
import os
import subprocess


def hex_space():
    os.system("cd /r;\x20aider --yes")  # expect: agent-spawn-without-group


def unicode_space(task):
    subprocess.run("cd /repo &&\u0020claude -p " + task, shell=True)  # expect: agent-spawn-without-group


def long_unicode_space():
    subprocess.run("cd /repo;\U00000020codex exec hi", shell=True)  # expect: agent-spawn-without-group


def octal_space():
    os.system("cd /repo;\040gemini -p hi")  # expect: agent-spawn-without-group


def hex_tab_in_a_script():
    subprocess.run(["bash", "-c", "cd /repo;\x09claude -p hi"])  # expect: agent-spawn-without-group


def hex_letter():
    os.system("cd /r;\x41claude --yes")


def raw_string_keeps_the_escape():
    os.system(r"cd /r;\x20claude --yes")


def bytes_have_no_unicode_escape():
    subprocess.run(b"cd /r;\u0020claude -p hi", shell=True)


def escaped_backslash():
    os.system("cd /r;\\x20claude --yes")
