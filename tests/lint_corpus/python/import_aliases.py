import subprocess as sp
from subprocess import Popen as P
from subprocess import run
from shutil import which as find_program

AIDER = find_program("aider")


def review(diff: str) -> str:
    return sp.run(["claude", "-p", f"review this diff:\n{diff}"], capture_output=True, text=True).stdout  # expect: agent-spawn-without-group


def edit(files: list[str]) -> None:
    proc = P([AIDER, "--message", "fix lint", *files])  # expect: agent-spawn-without-group
    proc.wait(timeout=300)


def edit_in_session(files: list[str]) -> None:
    proc = P([AIDER, "--message", "fix lint", *files], start_new_session=True)  # expect: agent-spawn-without-group
    proc.wait(timeout=300)


def goose(task: str) -> None:
    run(["goose", "run", "-t", task], check=True)  # expect: agent-spawn-without-group


def status() -> str:
    return sp.check_output(["git", "status", "--short"], text=True)
