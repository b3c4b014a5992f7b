"""`fleet run` at the head of a command string covers its own command only: the other
commands of the script are read as any script's."""

import os
import subprocess


def chain():
    os.system("fleet run -- claude -p a; claude -p b")  # expect: agent-spawn-without-group


def pipe():
    os.system("fleet run -- claude -p a | gemini -p b")  # expect: agent-spawn-without-group


def and_list():
    subprocess.run("fleet run -- claude -p a && codex exec b", shell=True)  # expect: agent-spawn-without-group


def all_under_fleet_run():
    os.system("fleet run --timeout 10m -- claude -p a")


def argv_under_fleet_run():
    subprocess.run(["fleet", "run", "--", "claude", "-p", "a"])
