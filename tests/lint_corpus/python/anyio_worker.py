import anyio
from anyio import run_process


async def worker(task: str) -> str:
    with anyio.fail_after(900):
        result = await anyio.run_process(["amp", "-x", task])  # expect: agent-spawn-without-group
    return result.stdout.decode()


async def grouped(task: str) -> str:
    result = await run_process(["cursor-agent", "-p", task], start_new_session=True)  # expect: agent-spawn-without-group
    return result.stdout.decode()


async def shorter(task: str) -> str:
    result = await run_process(["crush", "run", task])  # expect: agent-spawn-without-group
    return result.stdout.decode()


async def fmt() -> None:
    await run_process(["ruff", "format", "."])


anyio.run(worker, "triage")
