#!/usr/bin/env python3
"""Where a task's time goes in a `fleet drain --max 1`, from outside the drainer.

    python3 benches/drain_steps.py target/release/fleet [TASKS]

Makes a fresh 200-file repository in a temporary folder (TMPDIR; /dev/shm keeps the
machine's disk out of it), queues TASKS tasks (default 20) for an agent that logs the
time of its first and last command around `git add` and `git commit`, drains them with
`--max 1`, timestamps the drainer's lines as they arrive, and prints the medians of:
previous lane ready -> the agent's first command, the agent, the agent's last command ->
its lane ready. The agent's two `date` calls are two processes more than the bench's
agent. Nothing outside the temporary folder is read or written (HOME and git's global
config point into it).
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

AGENT = """#!/bin/sh
echo "$FLEET_TASK start $(date +%s.%N)" >> "$STARTS"
echo done > done.txt
git add done.txt
git commit -qm "agent: one file"
echo "$FLEET_TASK end $(date +%s.%N)" >> "$STARTS"
"""


def main():
    fleet = os.path.abspath(sys.argv[1])
    tasks = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory(prefix="drain-steps-") as base:
        env = dict(os.environ, HOME=base, GIT_CONFIG_NOSYSTEM="1",
                   GIT_CONFIG_GLOBAL=os.path.join(base, "gitconfig"),
                   STARTS=os.path.join(base, "starts"))
        run = lambda args, cwd: subprocess.run(args, cwd=cwd, env=env, check=True,
                                               stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL)
        for key, value in [("user.name", "Bench"), ("user.email", "bench@example.invalid"),
                           ("init.defaultBranch", "main"), ("maintenance.auto", "false")]:
            run(["git", "config", "--global", key, value], base)
        agent = os.path.join(base, "agent.sh")
        with open(agent, "w") as f:
            f.write(AGENT)
        os.chmod(agent, 0o755)
        repo = os.path.join(base, "repo")
        run(["git", "init", "-q", repo], base)
        for i in range(200):
            with open(os.path.join(repo, f"f{i}.txt"), "w") as f:
                f.write(f"{i}\n")
        with open(os.path.join(repo, "fleet.toml"), "w") as f:
            f.write('[gate]\ncommands = ["true"]\n\n[drain]\nagent = "bench"\n\n'
                    f'[agents.bench]\ncommand = ["{agent}"]\ncheck = ["true"]\n')
        run(["git", "add", "-A"], repo)
        run(["git", "commit", "-qm", "init"], repo)
        run([fleet, "init"], repo)
        names = [f"t{i:03}" for i in range(tasks)]
        for name in names:
            run([fleet, "task", "add", name, "--prompt", "commit one file"], repo)

        drain = subprocess.Popen([fleet, "drain", "--max", "1"], cwd=repo, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = {}
        for line in drain.stderr:
            m = re.match(r"(t\d+): succeeded; lane .* is ready to land", line)
            if m:
                ready[m.group(1)] = time.time()
                if len(ready) == tasks:
                    break
        drain.terminate()
        drain.wait()

        start, end = {}, {}
        with open(env["STARTS"]) as f:
            for line in f:
                name, kind, at = line.split()
                (start if kind == "start" else end)[name] = float(at)

    pairs = list(zip(names, names[1:]))
    med = lambda xs: f"{statistics.median(xs) * 1000:.1f} ms"
    print(f"| `fleet drain --max 1`, {tasks} tasks, medians | time |")
    print("| --- | ---: |")
    print(f"| previous lane ready -> the agent's first command | "
          f"{med([start[b] - ready[a] for a, b in pairs])} |")
    print(f"| the agent, first command to last | {med([end[n] - start[n] for n in names])} |")
    print(f"| the agent's last command -> lane ready | "
          f"{med([ready[n] - end[n] for n in names])} |")
    print(f"| per task (first lane ready to last) | "
          f"{(ready[names[-1]] - ready[names[0]]) / (tasks - 1) * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
