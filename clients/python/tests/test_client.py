"""The Python client against a real `a4aa serve` and the bundled example agent."""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, List, Optional

import pytest

from a4aa import (
    A4aaError,
    AgentEvent,
    Client,
    MessageChunkEvent,
    PermissionRequest,
    PermissionResolvedEvent,
    PermissionResponse,
    PermissionSelected,
    SanitizedEnvPolicy,
    SessionOptions,
    StreamItem,
    ToolCallUpdateEvent,
)
from conftest import CALL_TIMEOUT, ROOT, example_spec

Start = Callable[..., Client]


def shape(events: List[StreamItem]) -> List[str]:
    """The event types with runs of one type collapsed: the turn's shape."""
    out: List[str] = []
    for ev in events:
        if not out or out[-1] != ev.type:
            out.append(ev.type)
    return out


def open_example(client: Client, options: Optional[SessionOptions] = None) -> str:
    opened = client.session_open(spec=example_spec(), cwd=str(ROOT), options=options, timeout=CALL_TIMEOUT)
    return opened.session_id


def test_ping(start: Start) -> None:
    client = start()
    res = client.ping(timeout=CALL_TIMEOUT)
    assert res.protocol == "a4aa.v1" and res.version
    doc = client.rpc_discover(timeout=CALL_TIMEOUT)
    assert doc.openrpc and doc.methods and "components" in doc.extra


def test_prompt_streams_events_in_order_and_handler_answers_permission(start: Start) -> None:
    asked: List[PermissionRequest] = []

    def allow(req: PermissionRequest) -> PermissionResponse:
        asked.append(req)
        return PermissionSelected(selected="allow")

    client = start(permission_handler=allow)
    opened = client.session_open(spec=example_spec(), cwd=str(ROOT), timeout=CALL_TIMEOUT)
    assert opened.capabilities.lane == "acp" and opened.agent_info is not None
    assert opened.agent_info.name == "a4aa-example-agent"
    sid = opened.session_id
    out = client.session_prompt(session_id=sid, text="hello", timeout=CALL_TIMEOUT)
    assert out.stop_reason == "endTurn" and out.text is not None and "it printed hello" in out.text
    client.session_close(session_id=sid, timeout=CALL_TIMEOUT)
    events = list(client.events(sid))
    assert shape(events) == [
        "thoughtChunk", "plan", "toolCall", "toolCallUpdate", "toolCall",
        "permissionResolved", "toolCallUpdate", "messageChunk", "usage", "turnEnd",
    ]
    text = ""
    for ev in events:
        match ev:
            case MessageChunkEvent(text=t):
                text += t
            case PermissionResolvedEvent(outcome=outcome, option_id=option, decided_by=by):
                assert (outcome, option, by) == ("selected", "allow", "host")
            case ToolCallUpdateEvent(tool_call_id="run-1", status=status):
                assert status == "completed"
    assert text == out.text
    assert len(asked) == 1 and asked[0].tool_call_id == "run-1" and asked[0].kind == "execute"
    assert [o.option_id for o in asked[0].options] == ["allow", "always", "reject"]


def test_permission_without_handler_fails_closed(start: Start, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 14: decided by the policy (not the host), with one warning."""
    client = start()
    sid = open_example(client)
    out = client.session_prompt(session_id=sid, text="hello", timeout=CALL_TIMEOUT)
    assert out.text is not None and "I did not run the command" in out.text
    client.session_close(session_id=sid, timeout=CALL_TIMEOUT)
    events = list(client.events(sid))
    resolved = [e for e in events if isinstance(e, PermissionResolvedEvent)]
    assert [(e.outcome, e.decided_by) for e in resolved] == [("cancelled", "policy")]
    runs = [e for e in events if isinstance(e, ToolCallUpdateEvent) and e.tool_call_id == "run-1"]
    assert runs and runs[-1].status == "failed"
    assert len([r for r in caplog.records if "no permission_handler" in r.getMessage()]) == 1


def test_handler_that_raises_fails_closed(start: Start) -> None:
    def broken(req: PermissionRequest) -> PermissionResponse:
        raise RuntimeError("no")

    client = start(permission_handler=broken)
    sid = open_example(client)
    out = client.session_prompt(session_id=sid, text="hello", timeout=CALL_TIMEOUT)
    assert out.text is not None and "I did not run the command" in out.text


def test_cancel_during_turn(start: Start) -> None:
    client = start()
    sid = open_example(client)
    result: list = []
    t = threading.Thread(target=lambda: result.append(client.session_prompt(session_id=sid, text="/slow 100", timeout=CALL_TIMEOUT)))
    t.start()
    first = client.events(sid).get(timeout=20)
    assert isinstance(first, MessageChunkEvent)
    with pytest.raises(A4aaError) as busy:
        client.session_prompt(session_id=sid, text="again", timeout=CALL_TIMEOUT)
    assert (busy.value.code, busy.value.stage, busy.value.retryable) == ("turn_in_progress", "prompt", True)
    client.session_cancel(session_id=sid, timeout=CALL_TIMEOUT)
    t.join(20)
    assert not t.is_alive() and result[0].stop_reason == "cancelled"


def test_close_ends_events_and_is_idempotent(start: Start) -> None:
    client = start()
    sid = open_example(client)
    first = client.session_close(session_id=sid, timeout=CALL_TIMEOUT)
    assert first.processes.ended == 1 and first.processes.killed == 0  # R-SUP-6: the agent left on EOF
    again = client.session_close(session_id=sid, timeout=CALL_TIMEOUT)
    assert (again.processes.ended, again.processes.killed) == (0, 0)  # a closed id
    assert client.events(sid).get(timeout=10) is None
    with pytest.raises(A4aaError) as e:
        client.session_prompt(session_id=sid, text="x", timeout=CALL_TIMEOUT)
    assert e.value.code == "unknown_session"


def _spec_with(**command: object):  # type: ignore[no-untyped-def]
    spec = example_spec()
    for k, v in command.items():
        setattr(spec.command, k, v)
    return spec


ERROR_CASES = [
    ("invalid_params", lambda c: c.call("session/open", {"spec": None}, timeout=CALL_TIMEOUT), -32602, "open"),
    ("unknown_session", lambda c: c.session_prompt(session_id="no-such-session", text="x", timeout=CALL_TIMEOUT), -32001, "prompt"),
    ("unsupported_selector", lambda c: c.session_open(spec=example_spec(), options=SessionOptions(mode="no-such-mode"), timeout=CALL_TIMEOUT), -32000, "open"),
    ("env_refused", lambda c: c.session_open(spec=_spec_with(env=SanitizedEnvPolicy(inherit=["SECRET_TOKEN"])), timeout=CALL_TIMEOUT), -32000, "spawn"),
    ("spawn_failed", lambda c: c.session_open(spec=_spec_with(program="/no/such/agent"), timeout=CALL_TIMEOUT), -32000, "spawn"),
    ("method_not_found", lambda c: c.call("no/such/method", {}, timeout=CALL_TIMEOUT), -32601, "transport"),
]


@pytest.mark.parametrize("code,call,rpc_code,stage", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_error_kinds(start: Start, code: str, call: Callable[[Client], object], rpc_code: int, stage: str) -> None:
    client = start()
    with pytest.raises(A4aaError) as e:
        call(client)
    assert (e.value.rpc_code, e.value.code, e.value.stage, e.value.uncertain_effect) == (rpc_code, code, stage, False)


def test_peer_closed_when_sidecar_dies(start: Start) -> None:
    client = start()
    sid = open_example(client)
    errors: List[BaseException] = []

    def prompt() -> None:
        try:
            client.session_prompt(session_id=sid, text="/slow 200", timeout=CALL_TIMEOUT)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=prompt)
    t.start()
    client.events(sid).get(timeout=20)
    client._proc.kill()
    t.join(20)
    assert len(errors) == 1 and isinstance(errors[0], A4aaError)
    err = errors[0]
    assert (err.code, err.stage, err.uncertain_effect) == ("peer_closed", "transport", True)
    with pytest.raises(A4aaError) as after:
        client.ping(timeout=CALL_TIMEOUT)
    assert after.value.code == "peer_closed" and not after.value.uncertain_effect
    assert client.close() != 0


def test_ten_mib_prompt(start: Start) -> None:
    client = start()
    sid = open_example(client)
    text = "/size " + "x" * (10 << 20)
    out = client.session_prompt(session_id=sid, text=text, timeout=CALL_TIMEOUT)
    assert out.text == f"I received {len(text)} characters."


def test_eof_shutdown(start: Start) -> None:
    client = start()
    sid = open_example(client)
    began = time.monotonic()
    assert client.close() == 0
    assert client.events(sid).get(timeout=10) is None
    with pytest.raises(A4aaError) as e:
        client.ping(timeout=CALL_TIMEOUT)
    assert e.value.code == "peer_closed"
    print(f"EOF shutdown with one open session took {time.monotonic() - began:.2f} s")


def test_events_before_open_answer_are_buffered(start: Start) -> None:
    # The sidecar relays what the agent prints while starting before session/open answers;
    # a stream asked for only afterwards still gets it.
    client = start()
    spec = _spec_with(args=["-e", 'process.stdin.on("data", () => process.stdout.write(JSON.stringify({jsonrpc: "2.0", method: "early/hello", params: {}}) + "\\n"))'])
    threading.Thread(target=lambda: _ignore(lambda: client.session_open(spec=spec, timeout=3)), daemon=True).start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with client._lock:
            ids = list(client._streams)
        if ids:
            ev = client.events(ids[0]).get(timeout=10)
            assert ev is not None and ev.type == "raw" and getattr(ev, "source") == "acp"
            return
        time.sleep(0.02)
    pytest.fail("no event arrived for the opening session")


def _ignore(f: Callable[[], object]) -> None:
    try:
        f()
    except (A4aaError, TimeoutError):
        pass


@pytest.mark.skipif(os.environ.get("A4AA_SKIP_64MIB") == "1", reason="A4AA_SKIP_64MIB=1")
def test_line_64mib_through_sidecar(start: Start) -> None:
    client = start()
    sid = open_example(client)
    word = "z" * ((64 << 20) - 1024)
    began = time.monotonic()
    out = client.session_prompt(session_id=sid, text="/echo " + word, timeout=180)
    elapsed = time.monotonic() - began
    assert out.text == word
    client.session_close(session_id=sid, timeout=CALL_TIMEOUT)
    assert any(isinstance(e, MessageChunkEvent) and e.text == word for e in client.events(sid))
    print(f"a {len(word) + 6}-byte prompt echoed through a4aa serve in {elapsed:.1f} s")
