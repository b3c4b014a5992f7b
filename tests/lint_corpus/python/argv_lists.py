import os
import signal
import subprocess
import sys

GEMINI_FLAGS = ["--yolo", "--output-format", "json"]


def build_cmd(prompt: str) -> list[str]:
    return ["gemini", *GEMINI_FLAGS, "-p", prompt]


def run_gemini(prompt: str, timeout: int) -> str:
    cmd = ["gemini", "-p", prompt] + GEMINI_FLAGS
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)  # expect: agent-spawn-without-group
    return proc.stdout


def run_claude(prompt: str, timeout: int) -> str:
    argv = ["claude", "-p", prompt, "--dangerously-skip-permissions"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return out


def run_tests() -> int:
    cmd = [sys.executable, "-m", "pytest", "-q"]
    return subprocess.call(cmd)
