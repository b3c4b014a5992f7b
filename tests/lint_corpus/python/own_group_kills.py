"""The caller's own group, however it is named (`os.getpgid(0)`, `os.getpgrp()`), is not
the group of a child started with start_new_session=True: killing it leaves the agent."""

import atexit
import os
import signal
import subprocess


def getpgid_zero(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(os.getpgid(0), signal.SIGTERM)


def getpgrp(q):
    p = subprocess.Popen(["codex", "exec", q], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(os.getpgrp(), signal.SIGKILL)


def minus_getpgrp(q):
    p = subprocess.Popen(["gemini", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.kill(-os.getpgrp(), signal.SIGKILL)


def getpgid_of_getpid(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(os.getpgid(os.getpid()), signal.SIGKILL)


def own_group_in_a_name(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    me = os.getpgid(0)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(me, signal.SIGKILL)


def own_group_at_exit(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    atexit.register(os.killpg, os.getpgrp(), signal.SIGKILL)
    return p


def getpgid_of_the_child(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(os.getpgid(p.pid), signal.SIGKILL)


def group_in_a_name(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    pgid = os.getpgid(p.pid)
    try:
        p.wait(timeout=600)
    finally:
        os.killpg(pgid, signal.SIGKILL)
