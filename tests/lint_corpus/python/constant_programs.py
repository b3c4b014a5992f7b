"""Programs one step away: constants, f-strings, %/.format, shlex.split, built-up lists."""

import shlex
import subprocess as sp
import sys

AGENT = "gemini"
CLAUDE = "claude"
CODEX_CMD = "codex exec --full-auto"
BASE = [CLAUDE, "-p"]


def f_string(prompt):
    return sp.run(shlex.split(f"{AGENT} -p {shlex.quote(prompt)}"))  # expect: agent-spawn-without-group


def percent(prompt):
    return sp.call("%s -p %s" % (AGENT, shlex.quote(prompt)), shell=True)  # expect: agent-spawn-without-group


def dot_format(prompt):
    line = "{} --print {}".format(CLAUDE, shlex.quote(prompt))
    return sp.Popen(line, shell=True)  # expect: agent-spawn-without-group


def named_format(prompt):
    return sp.check_output("{bin} -p x".format(bin=CLAUDE), shell=True)  # expect: agent-spawn-without-group


def split_constant(prompt):
    return sp.run(shlex.split(CODEX_CMD) + [prompt])  # expect: agent-spawn-without-group


def concatenated(args):
    return sp.run([AGENT] + args)  # expect: agent-spawn-without-group


def splat(prompt):
    return sp.run([*BASE, prompt])  # expect: agent-spawn-without-group


def appended(prompt):
    argv = []
    argv.append(CLAUDE)
    argv.extend(["-p", prompt])
    return sp.run(argv)  # expect: agent-spawn-without-group


def extended(prompt):
    cmd: list[str] = []
    cmd += BASE
    cmd.append(prompt)
    sp.run(cmd)  # expect: agent-spawn-without-group


def function_constant(prompt):
    tool = "aider"
    full = [tool, "--message", prompt]
    sp.run(full)  # expect: agent-spawn-without-group


def joined(prompt):
    return sp.run(" ".join([CLAUDE, "-p", shlex.quote(prompt)]), shell=True)  # expect: agent-spawn-without-group


def dynamic(program, prompt):
    # Dynamic values are out of reach: not findings.
    sp.run([program, "-p", prompt])
    sp.run(shlex.split(sys.argv[1]))
    sp.run("{} -p".format(program), shell=True)


def not_an_agent(prompt):
    sp.run(shlex.split(f"{sys.executable} -m pytest"))
    sp.run("%s --version" % "git", shell=True)
    built = []
    built.append("ruff")
    sp.run(built)


def str_split(prompt):
    cmd = "{} {}".format(AGENT, "-p")
    return sp.Popen(cmd.split() + [prompt])  # expect: agent-spawn-without-group


def literal_split(prompt):
    return sp.Popen("claude -p".split(" ") + [prompt])  # expect: agent-spawn-without-group


def module_split_is_not_a_string(prompt):
    sp.run(shlex.split("pytest -q") + [prompt])
