"""Spawns that take the argv spread over their arguments: asyncio's
create_subprocess_exec(program, *args), os.execl*/os.spawnl* (after the program's own
arg0), os.execv*/os.spawnv* (a list after the path) and pexpect.spawn(command, args).
Wrappers, package runners and `sh -c` scripts are read in them as in an argv list."""

import asyncio
import os
import signal

import pexpect

SCRIPT = "cd /repo && claude -p hi"


async def bash_lc():
    proc = await asyncio.create_subprocess_exec("bash", "-lc", SCRIPT, stdout=asyncio.subprocess.PIPE)  # expect: agent-spawn-without-group
    await proc.wait()


async def nohup_wrapper(q):
    proc = await asyncio.create_subprocess_exec("nohup", "gemini", "-p", q)  # expect: agent-spawn-without-group
    await proc.wait()


async def package_runner(q):
    proc = await asyncio.create_subprocess_exec("npx", "-y", "@anthropic-ai/claude-code", "-p", q)  # expect: agent-spawn-without-group
    await proc.wait()


async def splatted(q):
    args = ["timeout", "--foreground", "60", "aider", "--message", q]
    proc = await asyncio.create_subprocess_exec(*args)  # expect: agent-spawn-without-group
    await proc.wait()


async def leader_only(q):
    proc = await asyncio.create_subprocess_exec("sudo", "-u", "agent", "claude", "-p", q, start_new_session=True)  # expect: agent-spawn-without-group
    try:
        await asyncio.wait_for(proc.wait(), 600)
    finally:
        proc.kill()


async def grouped_and_killed(q):
    proc = await asyncio.create_subprocess_exec("env", "CI=1", "codex", "exec", q, start_new_session=True)
    try:
        await asyncio.wait_for(proc.wait(), 600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def exec_in_place():
    os.execvp("bash", ["bash", "-c", "claude -p hi"])  # expect: agent-spawn-without-group


def exec_path():
    os.execv("/bin/sh", ["sh", "-c", "codex exec hi"])  # expect: agent-spawn-without-group


def spawn_positional():
    os.spawnlp(os.P_NOWAIT, "sh", "sh", "-c", "codex exec hi")  # expect: agent-spawn-without-group


def spawn_wrapper():
    os.spawnlp(os.P_WAIT, "nohup", "nohup", "gemini", "-p", "hi")  # expect: agent-spawn-without-group


def pexpect_args():
    child = pexpect.spawn("bash", ["-c", "claude -p hi"])  # expect: agent-spawn-without-group
    child.expect(pexpect.EOF)


def pexpect_keyword_args():
    child = pexpect.spawn("nohup", args=["aider", "--yes"])  # expect: agent-spawn-without-group
    child.expect(pexpect.EOF)


async def no_agent():
    proc = await asyncio.create_subprocess_exec("bash", "-lc", "make test")
    await proc.wait()


def arg0_is_only_a_name():
    os.execlp("git", "claude", "status")
