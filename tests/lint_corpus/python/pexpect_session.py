import pexpect


def drive(prompt: str) -> str:
    child = pexpect.spawn("aider", ["--no-auto-commits"], timeout=120)  # expect: agent-spawn-without-group
    child.expect("> ")
    child.sendline(prompt)
    child.expect("> ")
    out = child.before.decode()
    child.close(force=True)
    return out


def quick(prompt: str) -> str:
    return pexpect.run(f"claude -p '{prompt}'", timeout=60).decode()  # expect: agent-spawn-without-group


def ssh_probe(host: str) -> None:
    child = pexpect.spawn(f"ssh {host} uptime")
    child.expect(pexpect.EOF)
