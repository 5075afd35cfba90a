"""Turn-aware streams: events() marks where each turn ends; prompt_stream() yields one turn."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any, Callable, Dict, List

from a4aa import AgentEvent, AgentSelection, AsyncClient, CliAgentSpec, Client, Command, MessageChunkEvent, SanitizedEnvPolicy, TurnEnd
from conftest import CALL_TIMEOUT, ROOT, node, sidecar_command

Start = Callable[..., Client]


def text_of(events: List[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, MessageChunkEvent))


def echo_cli() -> CliAgentSpec:
    return CliAgentSpec(
        id="echo",
        driver="generic",
        command=Command(program=node(), args=[str(ROOT / "test" / "fixtures" / "cli" / "echo.mjs")], env=SanitizedEnvPolicy(inherit=["PATH", "HOME"])),
    )


def test_thread_reading_events_gets_each_turn_before_the_next(start: Start) -> None:
    client = start()
    sid = client.session_open(agent=AgentSelection(id="example"), cwd=str(ROOT), timeout=CALL_TIMEOUT).session_id
    turns: List[List[AgentEvent]] = [[]]
    ends: List[TurnEnd] = []

    def read() -> None:
        for ev in client.events(sid):
            if isinstance(ev, TurnEnd):
                ends.append(ev)
                turns.append([])
            else:
                turns[-1].append(ev)

    reader = threading.Thread(target=read)
    reader.start()
    outcomes = [client.session_prompt(session_id=sid, text=f"/echo turn-{i}", timeout=CALL_TIMEOUT) for i in range(3)]
    client.session_close(session_id=sid, timeout=CALL_TIMEOUT)
    reader.join(20)
    assert [text_of(t) for t in turns[:3]] == ["turn-0", "turn-1", "turn-2"]
    assert [e.outcome for e in ends] == outcomes and all(e.error is None for e in ends)
    assert turns[3] == []


def test_prompt_stream_on_acp_and_cli_lanes(start: Start) -> None:
    client = start()
    opens: List[Callable[[], str]] = [
        lambda: client.session_open(agent=AgentSelection(id="example"), cwd=str(ROOT), timeout=CALL_TIMEOUT).session_id,
        lambda: client.session_open(spec=echo_cli(), cwd=str(ROOT), timeout=CALL_TIMEOUT).session_id,
    ]
    for open_, prompt, want in zip(opens, ["/echo hi there", "ping"], ["hi there", "echo: ping"]):
        sid = open_()
        for _ in range(2):
            items = list(client.prompt_stream(session_id=sid, text=prompt, timeout=CALL_TIMEOUT))
            last = items[-1]
            assert isinstance(last, TurnEnd) and last.outcome is not None
            assert not any(isinstance(e, TurnEnd) for e in items[:-1])
            assert want in text_of(items[:-1]) and want in (last.outcome.text or "")
        client.session_close(session_id=sid, timeout=CALL_TIMEOUT)


def test_prompt_stream_raises_the_prompts_error(start: Start) -> None:
    client = start()
    try:
        list(client.prompt_stream(session_id="no-such-session", text="x", timeout=CALL_TIMEOUT))
    except Exception as e:
        assert getattr(e, "code", None) == "unknown_session", e
    else:
        raise AssertionError("no error")


def test_async_prompt_stream() -> None:
    async def main() -> Dict[str, Any]:
        async with AsyncClient(sidecar_command(), close_timeout=20) as client:
            sid = (await client.session_open(agent=AgentSelection(id="example"), cwd=str(ROOT), timeout=CALL_TIMEOUT)).session_id
            items = [ev async for ev in client.prompt_stream(session_id=sid, text="/echo async", timeout=CALL_TIMEOUT)]
            marker = None
            await client.session_prompt(session_id=sid, text="/echo again", timeout=CALL_TIMEOUT)
            async for ev in client.events(sid):
                if isinstance(ev, TurnEnd):
                    marker = ev
                    break
            return {"items": items, "marker": marker}

    got = asyncio.run(main())
    items = got["items"]
    assert isinstance(items[-1], TurnEnd) and text_of(items[:-1]) == "async"
    assert got["marker"] is not None and got["marker"].outcome.text == "again"


def test_a_prompt_given_up_on_still_gets_its_marker(start: Start) -> None:
    client = start()
    sid = client.session_open(agent=AgentSelection(id="example"), cwd=str(ROOT), timeout=CALL_TIMEOUT).session_id
    try:
        client.session_prompt(session_id=sid, text="/slow 40", timeout=0.2)
    except TimeoutError:
        pass
    else:
        raise AssertionError("no timeout")
    while True:
        ev = client.events(sid).get(timeout=20)
        if isinstance(ev, TurnEnd):
            break
    assert ev.outcome is None and isinstance(ev.error, TimeoutError)
    client.session_cancel(session_id=sid, timeout=CALL_TIMEOUT)


def test_a_cancelled_turns_text_never_leaks_into_the_next_prompt_stream(start: Start) -> None:
    """Issue 29: a stream left after a cancel (`break`) kept its turn's rest queued; the next
    prompt_stream showed it first ("tick1 tickMOCK-OK 20")."""
    client = start()
    sid = client.session_open(agent=AgentSelection(id="example"), cwd=str(ROOT), timeout=CALL_TIMEOUT).session_id
    for cancel in (True, False):
        stream = client.prompt_stream(session_id=sid, text="/slow 4", timeout=CALL_TIMEOUT)
        for ev in stream:
            if isinstance(ev, MessageChunkEvent):
                break  # the person stops reading after the first chunk …
        if cancel:
            client.session_cancel(session_id=sid, timeout=CALL_TIMEOUT)  # … and cancels, or lets it run out
        stream.close()
        items = list(client.prompt_stream(session_id=sid, text="/echo after", timeout=CALL_TIMEOUT))
        assert isinstance(items[-1], TurnEnd) and items[-1].outcome is not None
        assert text_of(items[:-1]) == "after", text_of(items[:-1])


def test_async_a_cancelled_turns_text_never_leaks_into_the_next_prompt_stream() -> None:
    async def main() -> str:
        async with AsyncClient(sidecar_command(), close_timeout=20) as client:
            sid = (await client.session_open(agent=AgentSelection(id="example"), cwd=str(ROOT), timeout=CALL_TIMEOUT)).session_id
            agen = client.prompt_stream(session_id=sid, text="/slow 4", timeout=CALL_TIMEOUT)
            async for ev in agen:
                if isinstance(ev, MessageChunkEvent):
                    break
            await agen.aclose()
            items = [ev async for ev in client.prompt_stream(session_id=sid, text="/echo after", timeout=CALL_TIMEOUT)]
            return text_of(items[:-1])

    assert asyncio.run(main()) == "after"


def test_open_result_shared_is_false_when_absent(start: Start) -> None:
    """Issue 29: OpenResult.shared was None for a session on its own process; absent means False."""
    client = start()
    opened = client.session_open(agent=AgentSelection(id="example"), cwd=str(ROOT), timeout=CALL_TIMEOUT)
    assert opened.shared is False
