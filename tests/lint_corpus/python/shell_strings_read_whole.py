# A command string the shell runs (`shell=True`, `os.system`, `os.popen`,
# `subprocess.getoutput`, `asyncio.create_subprocess_shell`) is read as a whole shell
# script, as a `.sh` file is: every command of a list, pipeline, subshell or loop, and
# wrappers chained past the first few words.
import asyncio
import os
import subprocess


def after_cd(repo):
    subprocess.run(f"cd {repo} && claude -p 'fix the build'", shell=True)  # expect: agent-spawn-without-group


def second_command():
    subprocess.Popen("echo start; codex exec hi", shell=True)  # expect: agent-spawn-without-group


def piped():
    return subprocess.check_output("git diff | claude -p review", shell=True)  # expect: agent-spawn-without-group


def in_a_subshell():
    subprocess.Popen("(gemini -p hi &)", shell=True)  # expect: agent-spawn-without-group


def in_a_loop():
    subprocess.run("for t in a b; do claude -p $t; done", shell=True)  # expect: agent-spawn-without-group


def in_an_if():
    subprocess.run("if test -d .git; then gemini -p hi; fi", shell=True)  # expect: agent-spawn-without-group


def chained_wrappers():
    subprocess.run("sudo -u agent nice -n 5 codex exec hi", shell=True)  # expect: agent-spawn-without-group


def two_value_wrappers():
    subprocess.run("ionice -c 3 nice -n 5 claude -p hi", shell=True)  # expect: agent-spawn-without-group


def unquoted_default():
    subprocess.run("${CLAUDE_BIN:-claude} -p hi", shell=True)  # expect: agent-spawn-without-group


def system_after_cd():
    os.system("cd /repo && aider --yes")  # expect: agent-spawn-without-group


def popen_after_echo():
    return os.popen("echo x && codex exec x").read()  # expect: agent-spawn-without-group


def getoutput_after_cd():
    return subprocess.getoutput("cd /repo && gemini -p hi")  # expect: agent-spawn-without-group


async def shell_pipeline():
    return await asyncio.create_subprocess_shell("git diff | claude -p review")  # expect: agent-spawn-without-group


def no_agent_run():
    subprocess.run("make -j8 && echo claude done | tee build.log", shell=True)
    os.system("cd /repo && command -v claude")


def session_the_script_kills():
    return subprocess.Popen(
        "cd /repo && setsid claude -p x & pid=$!; sleep 60; kill -- -$pid", shell=True
    )
