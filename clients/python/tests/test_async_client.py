"""AsyncClient (asyncio) against a real `a4aa serve` and the bundled example agent.

Each test runs its own event loop (asyncio.run): no pytest plugin needed."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, List, Optional

import pytest

from a4aa import (
    A4aaError,
    AgentEvent,
    StreamItem,
    AsyncClient,
    MessageChunkEvent,
    PermissionRequest,
    PermissionResolvedEvent,
    PermissionResponse,
    PermissionSelected,
)
from conftest import CALL_TIMEOUT, ROOT, example_spec, sidecar_command


def run(test: Callable[[AsyncClient], Awaitable[None]], **kwargs: Any) -> None:
    """Runs test(client) in a fresh event loop; the client is closed (or killed) after."""

    async def main() -> None:
        client = AsyncClient(sidecar_command(), close_timeout=20.0, **kwargs)
        try:
            await test(client)
        finally:
            if client.returncode is None:
                await client.close(timeout=20)
            if client.returncode is None:
                client._c._proc.kill()

    asyncio.run(asyncio.wait_for(main(), 120))


async def open_example(client: AsyncClient) -> str:
    opened = await client.session_open(spec=example_spec(), cwd=str(ROOT), timeout=CALL_TIMEOUT)
    return opened.session_id


async def collect(client: AsyncClient, sid: str) -> List[StreamItem]:
    return [ev async for ev in client.events(sid)]


def test_async_ping_and_prompt_with_a_coroutine_permission_handler_run_on_the_loop() -> None:
    asked: List[PermissionRequest] = []
    handler_threads: List[int] = []

    async def allow(req: PermissionRequest) -> PermissionResponse:
        handler_threads.append(threading.get_ident())
        await asyncio.sleep(0.01)  # a handler may await (ask a user, a policy service…)
        asked.append(req)
        return PermissionSelected(selected="allow")

    async def test(client: AsyncClient) -> None:
        loop_thread = threading.get_ident()
        assert (await client.ping(timeout=CALL_TIMEOUT)).protocol == "a4aa.v1"
        sid = await open_example(client)
        events = asyncio.ensure_future(collect(client, sid))
        out = await client.session_prompt(session_id=sid, text="hello", timeout=CALL_TIMEOUT)
        assert out.stop_reason == "endTurn" and out.text is not None and "it printed hello" in out.text
        await client.session_close(session_id=sid, timeout=CALL_TIMEOUT)
        got = await asyncio.wait_for(events, 20)
        assert "".join(e.text for e in got if isinstance(e, MessageChunkEvent)) == out.text
        resolved = [e for e in got if isinstance(e, PermissionResolvedEvent)]
        assert [(e.outcome, e.option_id, e.decided_by) for e in resolved] == [("selected", "allow", "host")]
        assert handler_threads == [loop_thread]
        assert len(asked) == 1 and asked[0].tool_call_id == "run-1"

    run(test, permission_handler=allow)


def test_async_plain_function_handler_and_no_handler() -> None:
    def reject(req: PermissionRequest) -> Optional[PermissionResponse]:
        return None  # None answers "cancelled"

    async def test(client: AsyncClient) -> None:
        sid = await open_example(client)
        out = await client.session_prompt(session_id=sid, text="hello", timeout=CALL_TIMEOUT)
        assert out.text is not None and "I did not run the command" in out.text

    run(test, permission_handler=reject)
    run(test)  # no handler at all: fails closed too


def test_async_handler_that_raises_fails_closed() -> None:
    async def broken(req: PermissionRequest) -> PermissionResponse:
        raise RuntimeError("no")

    async def test(client: AsyncClient) -> None:
        sid = await open_example(client)
        out = await client.session_prompt(session_id=sid, text="hello", timeout=CALL_TIMEOUT)
        assert out.text is not None and "I did not run the command" in out.text

    run(test, permission_handler=broken)


def test_async_cancel_during_turn_is_written_after_its_prompt(tmp_path: Path) -> None:
    log = open(tmp_path / "sidecar.log", "w+b")

    async def test(client: AsyncClient) -> None:
        sid = await open_example(client)
        prompt = asyncio.ensure_future(client.session_prompt(session_id=sid, text="/slow 100", timeout=CALL_TIMEOUT))
        first = await client.events(sid).get(timeout=20)
        assert isinstance(first, MessageChunkEvent)
        with pytest.raises(A4aaError) as busy:
            await client.session_prompt(session_id=sid, text="again", timeout=CALL_TIMEOUT)
        assert (busy.value.code, busy.value.retryable) == ("turn_in_progress", True)
        await client.session_cancel(session_id=sid, timeout=CALL_TIMEOUT)
        assert (await asyncio.wait_for(prompt, 20)).stop_reason == "cancelled"
        # Made back to back, without awaiting the first: the writer keeps their order.
        again = asyncio.ensure_future(client.session_prompt(session_id=sid, text="/slow 100", timeout=CALL_TIMEOUT))
        cancel = asyncio.ensure_future(client.session_cancel(session_id=sid, timeout=CALL_TIMEOUT))
        await cancel
        assert (await asyncio.wait_for(again, 20)).stop_reason == "cancelled"

    run(test, stderr=log)
    # The agent ended both turns itself: the sidecar never had to settle one at the end of
    # its cancel grace (it would have said so on stderr).
    log.seek(0)
    assert b"did not end the cancelled turn" not in log.read()
    log.close()


def test_async_cancelled_task_and_timeout_leave_the_client_usable() -> None:
    async def test(client: AsyncClient) -> None:
        sid = await open_example(client)
        task = asyncio.ensure_future(client.session_prompt(session_id=sid, text="/slow 100", timeout=CALL_TIMEOUT))
        await client.events(sid).get(timeout=20)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await client.session_cancel(session_id=sid, timeout=CALL_TIMEOUT)  # its late answer is dropped
        # The cancelled turn settles in the sidecar shortly after the cancel's answer; until
        # then a new prompt is refused with turn_in_progress, which says it is retryable.
        for _ in range(100):
            try:
                await client.session_prompt(session_id=sid, text="/slow 100", timeout=0.3)
                pytest.fail("a slow turn answered within 0.3 s")
            except A4aaError as e:
                assert e.code == "turn_in_progress" and e.retryable
                await asyncio.sleep(0.05)
            except TimeoutError:
                break
        else:
            pytest.fail("the cancelled turn never settled")
        await client.session_cancel(session_id=sid, timeout=CALL_TIMEOUT)
        pings = await asyncio.gather(*(client.ping(timeout=CALL_TIMEOUT) for _ in range(200)))
        assert len(pings) == 200 and all(p.protocol == "a4aa.v1" for p in pings)

    run(test)


def test_async_ten_mib_prompt_is_written_off_the_event_loop() -> None:
    async def test(client: AsyncClient) -> None:
        loop_thread = threading.get_ident()
        writers: List[int] = []
        write = client._c._write

        def recording_write(data: bytes) -> None:
            writers.append(threading.get_ident())
            write(data)

        client._c._write = recording_write  # type: ignore[method-assign]
        sid = await open_example(client)
        text = "/size " + "x" * (10 << 20)
        out = await client.session_prompt(session_id=sid, text=text, timeout=CALL_TIMEOUT)
        assert out.text == f"I received {len(text)} characters."
        assert len(writers) == 2 and loop_thread not in writers, "a request was written on the event loop's thread"

    run(test)


def test_async_typed_errors_and_eof_shutdown() -> None:
    async def test(client: AsyncClient) -> None:
        with pytest.raises(A4aaError) as e:
            await client.session_prompt(session_id="no-such-session", text="x", timeout=CALL_TIMEOUT)
        assert (e.value.rpc_code, e.value.code, e.value.stage) == (-32001, "unknown_session", "prompt")
        sid = await open_example(client)
        began = time.monotonic()
        assert await client.close() == 0
        assert await client.events(sid).get(timeout=10) is None
        with pytest.raises(A4aaError) as after:
            await client.ping(timeout=CALL_TIMEOUT)
        assert after.value.code == "peer_closed"
        print(f"EOF shutdown took {time.monotonic() - began:.2f} s")

    run(test)


def test_async_peer_closed_when_sidecar_dies() -> None:
    async def test(client: AsyncClient) -> None:
        sid = await open_example(client)
        prompt = asyncio.ensure_future(client.session_prompt(session_id=sid, text="/slow 200", timeout=CALL_TIMEOUT))
        await client.events(sid).get(timeout=20)
        client._c._proc.kill()
        with pytest.raises(A4aaError) as e:
            await asyncio.wait_for(prompt, 20)
        assert (e.value.code, e.value.uncertain_effect) == ("peer_closed", True)
        await asyncio.wait_for(collect(client, sid), 10)  # the stream ends with the connection
        assert await client.close() != 0

    run(test)


def test_async_context_manager_closes_the_sidecar() -> None:
    async def main() -> Optional[int]:
        async with AsyncClient(sidecar_command()) as client:
            await client.ping(timeout=CALL_TIMEOUT)
            assert await client.close() == 0  # closing early is fine: the context's close repeats it
        assert await client.close() == 0
        return client.returncode

    assert asyncio.run(main()) == 0
