"""A program built from constants in many steps (a path, then lists concatenated onto
each other) is still the agent it names."""

import os
import signal
import subprocess

AGENT_DIR = "/opt/agents"
AGENT = AGENT_DIR + "/claude"
BASE = [AGENT, "-p"]
WITH_MODEL = BASE + ["--model", "sonnet"]
WITH_FORMAT = WITH_MODEL + ["--output-format", "json"]
WITH_VERBOSE = WITH_FORMAT + ["--verbose"]
WITH_TURNS = WITH_VERBOSE + ["--max-turns", "3"]
FULL = WITH_TURNS + ["--no-color"]


def ask(prompt):
    return subprocess.Popen(FULL + [prompt], stdout=subprocess.PIPE).communicate()[0]  # expect: agent-spawn-without-group


def ask_in_group(prompt):
    proc = subprocess.Popen(FULL + [prompt], start_new_session=True)
    try:
        return proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
