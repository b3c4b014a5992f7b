import subprocess


def interactive_session() -> None:
    # fleet: allow(agent-spawn-without-group) interactive use: the user owns the terminal and Ctrl-C
    subprocess.run(["claude"])


def version() -> str:
    return subprocess.check_output(["claude", "--version"], text=True)  # fleet: allow(agent-spawn-without-group) exits at once, starts no helpers


def lazy() -> None:
    # expect: suppression-without-reason -- fleet: allow(agent-spawn-without-group)
    subprocess.run(["codex", "exec", "refactor"])  # expect: agent-spawn-without-group


def other_rule() -> None:
    # fleet: allow(some-other-rule) unrelated reason
    subprocess.run(["gemini", "-p", "hello"])  # expect: agent-spawn-without-group
