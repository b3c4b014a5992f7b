"""An agent behind a wrapper that keeps its group (`nohup`, `env A=1`, `nice -n 10`),
in an argv list or a shell string, is still an agent run; a look-up is not."""

import os
import shutil
import subprocess


def background():
    os.system("nohup claude -p 'work through TODO.md' > claude.log 2>&1 &")  # expect: agent-spawn-without-group


def argv_nohup(prompt):
    return subprocess.Popen(["nohup", "codex", "exec", prompt])  # expect: agent-spawn-without-group


def argv_env(prompt):
    return subprocess.run(["env", "ANTHROPIC_MODEL=opus", "claude", "-p", prompt])  # expect: agent-spawn-without-group


def shell_nice(prompt):
    return subprocess.Popen(f"nice -n 10 gemini -p {prompt}", shell=True)  # expect: agent-spawn-without-group


def installed():
    return subprocess.run("command -v claude", shell=True).returncode == 0 or shutil.which("codex")


def under_timeout(prompt):
    return subprocess.run(["timeout", "600", "claude", "-p", prompt])
