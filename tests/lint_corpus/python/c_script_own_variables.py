# A `-c` script's own variables and arrays are followed as a shell script file's are,
# in an argument list and in a command string alike.
import os
import subprocess


def variable():
    subprocess.run(["bash", "-c", "AGENT=claude; $AGENT -p hi"])  # expect: agent-spawn-without-group


def array():
    subprocess.run(["bash", "-c", 'CMD=(codex exec); "${CMD[@]}" x'])  # expect: agent-spawn-without-group


def in_a_command_string():
    os.system("sh -c 'AGENT=claude; $AGENT -p'")  # expect: agent-spawn-without-group


def assigned_in_the_string():
    subprocess.run("AGENT=gemini; $AGENT -p hi", shell=True)  # expect: agent-spawn-without-group


def not_an_agent():
    subprocess.run(["bash", "-c", "A=echo; $A claude"])
