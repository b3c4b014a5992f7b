"""`start_new_session=` and `process_group=` are read for what they hold: a constant
bound to `True` (or to `0` for `process_group`), an expression such as `(os.name ==
"posix")` or a parameter (even one whose default is `False`: its callers may pass
`True`) asks for a new session; `False`, `0`, `None`, a constant bound to one of them,
or a test that the platform is Windows does not."""

import os
import signal
import subprocess

NEW_SESSION = True
NO_SESSION = False
OWN_GROUP = 0
NO_GROUP = None
ON_POSIX = os.name == "posix"


def constant_session(task):
    proc = subprocess.Popen(["claude", "-p", task], start_new_session=NEW_SESSION)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def posix_expression(task):
    proc = subprocess.Popen(["claude", "-p", task], start_new_session=(os.name == "posix"))
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def posix_constant(task):
    proc = subprocess.Popen(["codex", "exec", task], start_new_session=ON_POSIX)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def group_constant(task):
    proc = subprocess.Popen(["codex", "exec", task], process_group=OWN_GROUP)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def caller_decides(task, session):
    proc = subprocess.Popen(["gemini", "-p", task], start_new_session=session)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def caller_may_turn_it_on(task, session=False):
    proc = subprocess.Popen(["gemini", "-p", task], start_new_session=session)
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def constant_no_session(task):
    proc = subprocess.Popen(["claude", "-p", task], start_new_session=NO_SESSION)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def zero_session(task):
    proc = subprocess.Popen(["claude", "-p", task], start_new_session=0)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def constant_no_group(task):
    proc = subprocess.Popen(["codex", "exec", task], process_group=NO_GROUP)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def windows_only(task):
    proc = subprocess.Popen(["gemini", "-p", task], start_new_session=(os.name == "nt"))  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def not_on_posix(task):
    proc = subprocess.Popen(["gemini", "-p", task], start_new_session=not ON_POSIX)  # expect: agent-spawn-without-group
    try:
        proc.wait(timeout=600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
