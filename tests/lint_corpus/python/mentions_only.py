"""Cost report for agent runs.

Reads the JSON logs that `claude -p --output-format json` and `codex exec --json`
write, and prints a table. It never starts claude itself.
"""

import json
import logging
import subprocess
from pathlib import Path

log = logging.getLogger(__name__)

AGENTS = ["claude", "codex", "gemini"]
# subprocess.run(["claude", "-p", "old way"])  -- kept for reference, do not use
USAGE = 'run: subprocess.run(["claude", "-p", prompt])'


def load(folder: Path) -> list[dict]:
    runs = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("agent") == "claude":
            log.info("claude run %s cost %s", path.name, data.get("cost_usd"))
        runs.append(data)
    return runs


def report(runs: list[dict]) -> None:
    for agent in AGENTS:
        total = sum(r.get("cost_usd", 0) for r in runs if r.get("agent") == agent)
        print(f"{agent:>8}: ${total:.2f}")
    print("to rerun: claude -p 'summarise the logs'")


def commit_report() -> None:
    subprocess.run(["git", "add", "reports/"], check=True)
    subprocess.run(["git", "commit", "-m", "cost report for claude and codex runs"], check=True)
    subprocess.run(["python", "-m", "claude_cost_tools", "--upload"], check=True)
