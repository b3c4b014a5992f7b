"""An agent run by a Python package runner (uvx, uv tool run, pipx run) by its PyPI
package name is still that agent; any other package is not."""

import subprocess


def via_uvx(msg):
    return subprocess.call(["uvx", "aider-chat", "--message", msg])  # expect: agent-spawn-without-group


def via_uvx_from(msg):
    return subprocess.call(["uvx", "--from", "aider-chat", "aider", "--message", msg])  # expect: agent-spawn-without-group


def via_uv_tool_run(msg):
    return subprocess.run(["uv", "tool", "run", "--python", "3.12", "aider-chat==0.80.0", "--message", msg])  # expect: agent-spawn-without-group


def via_pipx_run(msg):
    return subprocess.run(["pipx", "run", "--spec", "aider-chat[browser]", "aider", "--message", msg])  # expect: agent-spawn-without-group


def a_tool():
    return subprocess.run(["uvx", "--from", "ruff", "ruff", "check", "."])


def a_tool_named_like_an_option_value():
    return subprocess.run(["uvx", "--python", "aider-chat", "black", "."])
