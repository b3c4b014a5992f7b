#!/usr/bin/env python3
"""Quick-and-dirty release notes generator."""

import os
import sys


def notes(tag: str) -> str:
    os.system("git fetch --tags")
    log = os.popen(f"git log --oneline {tag}..HEAD").read()
    # os.system cannot start a new group: always a finding
    os.system(f"claude -p 'write release notes for: {log}' > NOTES.md")  # expect: agent-spawn-without-group
    with os.popen("gemini -p 'summarise NOTES.md'") as pipe:  # expect: agent-spawn-without-group
        return pipe.read()


def clean() -> None:
    os.system("rm -rf build/ dist/")


if __name__ == "__main__":
    print(notes(sys.argv[1]))
