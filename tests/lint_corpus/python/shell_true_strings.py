import shlex
import subprocess


def run_task(task: str, timeout: int) -> str:
    quoted = shlex.quote(task)
    cmd = f"claude -p {quoted} --max-turns 20"
    result = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout)  # expect: agent-spawn-without-group
    return result.stdout


def run_task_grouped(task: str, timeout: int) -> str:
    result = subprocess.run(  # expect: agent-spawn-without-group
        f"qwen -p {shlex.quote(task)}",
        shell=True,
        capture_output=True,
        text=True,
        timeout=timeout,
        start_new_session=True,
    )
    return result.stdout


def pipeline(task: str) -> int:
    return subprocess.call("codex exec " + shlex.quote(task) + " | tee codex.log", shell=True)  # expect: agent-spawn-without-group


def build() -> int:
    return subprocess.call("make -j8 && ./scripts/test.sh", shell=True)
