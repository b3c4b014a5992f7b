"""A constant rebuilt from itself again and again: evaluated within a budget, never for ever."""

import subprocess

X = "make"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
X = f"{X}{X}{X}{X}{X}{X}{X}{X}"
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X
Y = X + X + X + X + X + X + X + X


def repeated():
    return subprocess.run(X)


def plus():
    return subprocess.run(Y)


def plain(prompt):
    return subprocess.run(["codex", "exec", prompt])  # expect: agent-spawn-without-group
