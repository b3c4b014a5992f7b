"""An agent run through a package runner by its npm package name (claude's, codex's) is
still that agent; any other package is not."""

import subprocess


def via_npx(q):
    return subprocess.Popen(["npx", "-y", "@anthropic-ai/claude-code", "-p", q])  # expect: agent-spawn-without-group


def via_pnpm_dlx(q):
    return subprocess.run(["pnpm", "dlx", "@openai/codex", "exec", q])  # expect: agent-spawn-without-group


def a_tool():
    return subprocess.run(["npx", "-y", "prettier", "--write", "."])
