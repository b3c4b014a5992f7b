"""Factories that hand a new-session child to their callers in this module: each caller
must kill its group (itself, in a function it hands the child to, or in a class that
keeps it). A group kill elsewhere in the module, for another child, does not count."""

import os
import signal
import subprocess


def start_claude(prompt):
    return subprocess.Popen(["claude", "-p", prompt], start_new_session=True)


def run_claude(prompt):
    proc = start_claude(prompt)
    try:
        return proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def start_codex(prompt):
    proc = subprocess.Popen(["codex", "exec", prompt], start_new_session=True)  # expect: agent-spawn-without-group
    return proc


def run_codex(prompt):
    proc = start_codex(prompt)
    try:
        return proc.wait(timeout=600)
    finally:
        proc.kill()


def start_gemini(prompt):
    return subprocess.Popen(["gemini", "-p", prompt], start_new_session=True)  # expect: agent-spawn-without-group


def ask_gemini(prompt):
    return start_gemini(prompt).wait()


def start_aider(files):
    return subprocess.Popen(["aider", "--yes", *files], start_new_session=True)


def stop(proc):
    os.killpg(proc.pid, signal.SIGTERM)


def edit(files):
    proc = start_aider(files)
    try:
        proc.wait(timeout=900)
    finally:
        stop(proc)


class Session:
    def __init__(self, proc):
        self.proc = proc

    def close(self):
        os.killpg(self.proc.pid, signal.SIGKILL)


def start_goose(task):
    return subprocess.Popen(["goose", "run", "-t", task], start_new_session=True)


def open_session(task):
    return Session(start_goose(task))


def spawn_opencode(prompt):
    return subprocess.Popen(["opencode", "run", prompt], start_new_session=True)


def start_opencode(prompt):
    return spawn_opencode(prompt)


def main(prompt):
    proc = start_opencode(prompt)
    try:
        proc.wait(timeout=300)
    finally:
        os.killpg(os.getpgid(proc.pid), signal.SIGKILL)
