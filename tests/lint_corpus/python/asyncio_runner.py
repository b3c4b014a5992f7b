import asyncio
import os
import signal


async def run_codex(prompt: str, timeout: float) -> bytes:
    proc = await asyncio.create_subprocess_exec(  # expect: agent-spawn-without-group
        "codex",
        "exec",
        prompt,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        proc.kill()
        raise
    return out


async def run_claude(prompt: str, timeout: float) -> bytes:
    proc = await asyncio.create_subprocess_exec(
        "claude",
        "-p",
        prompt,
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    return out


async def run_shell(prompt: str) -> int:
    proc = await asyncio.create_subprocess_shell(f"gemini -p {prompt!r}")  # expect: agent-spawn-without-group
    return await proc.wait()


async def list_files() -> bytes:
    proc = await asyncio.create_subprocess_exec("ls", "-la", stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    return out


async def main() -> None:
    results = await asyncio.gather(run_codex("fix the tests", 600), run_claude("review", 600))
    print(results)


if __name__ == "__main__":
    asyncio.run(main())
