# The `kill` program given a negative pid (`kill -TERM -- -PGID`), run as a subprocess,
# signals the child's group as os.killpg does. A pid without the minus signals the
# leader alone.
import os
import subprocess


def run_list(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)
    try:
        p.wait(60)
    finally:
        subprocess.run(["kill", "-TERM", "--", f"-{p.pid}"])


def run_concat(q):
    p = subprocess.Popen(["codex", "exec", q], start_new_session=True)
    try:
        p.wait(60)
    finally:
        subprocess.call(["/bin/kill", "-9", "-" + str(p.pid)])


def run_system(q):
    p = subprocess.Popen(["gemini", "-p", q], start_new_session=True)
    try:
        p.wait(60)
    finally:
        os.system(f"kill -KILL -- -{p.pid}")


def leader_only(q):
    p = subprocess.Popen(["claude", "-p", q], start_new_session=True)  # expect: agent-spawn-without-group
    try:
        p.wait(60)
    finally:
        subprocess.run(["kill", "-TERM", str(p.pid)])
