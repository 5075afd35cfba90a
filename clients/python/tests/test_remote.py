"""R-REMOTE-10: connect(url, token) against a real `a4aa serve --listen` on loopback, behind
a TCP proxy the test cuts mid-turn."""

from __future__ import annotations

import asyncio
import re
import signal
import selectors
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional, cast

import pytest

from a4aa import A4aaError, AsyncClient, MessageChunkEvent, PermissionCancelled, PermissionRequest, PermissionResponse, PermissionSelected, ReconnectOptions, RemoteClient, TurnEnd, connect

from conftest import CALL_TIMEOUT, ROOT, example_spec, sidecar_command

TOKEN = "py-remote-token-0123456789"


@pytest.fixture
def listening(tmp_path: Path) -> Iterator[str]:
    """A sidecar listening on ws://127.0.0.1 with a token file; its URL."""
    tokens = tmp_path / "tokens"
    tokens.write_text(f"pyhost:{TOKEN}\n")
    proc = subprocess.Popen([*sidecar_command(), "--listen", "ws://127.0.0.1:0", "--auth-token-file", str(tokens)], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    url: Optional[str] = None
    deadline = time.monotonic() + 20
    while url is None and time.monotonic() < deadline:
        line = proc.stderr.readline().decode()
        m = re.search(r"listening on (ws://\S+)", line)
        if m:
            url = m.group(1)
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    assert url, "the sidecar did not say where it listens"
    try:
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class CutProxy:
    """Forwards TCP to the sidecar, all in one thread (selectors); cut() resets every live
    connection (a dropped network)."""

    def __init__(self, target: str) -> None:
        host, port = target.removeprefix("ws://").split("/")[0].rsplit(":", 1)
        self._target = (host, int(port))
        self._ln = socket.create_server(("127.0.0.1", 0))
        self.url = f"ws://127.0.0.1:{self._ln.getsockname()[1]}"
        self._sel = selectors.DefaultSelector()
        self._peer: Dict[socket.socket, socket.socket] = {}
        self._wake_r, self._wake_w = socket.socketpair()
        self._cuts = 0
        self._done = threading.Event()
        self._closed = False
        self._sel.register(self._ln, selectors.EVENT_READ)
        self._sel.register(self._wake_r, selectors.EVENT_READ)
        threading.Thread(target=self._loop, daemon=True).start()

    def _drop(self, s: socket.socket) -> None:
        for x in (s, self._peer.get(s)):
            if x is None or x not in self._peer:
                continue
            self._peer.pop(x, None)
            self._sel.unregister(x)
            try:
                x.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
            x.close()

    def _loop(self) -> None:
        while not self._closed:
            for key, _ in self._sel.select(1.0):
                s = cast(socket.socket, key.fileobj)
                if s is self._ln:
                    down, _ = self._ln.accept()
                    up = socket.create_connection(self._target)
                    self._peer[down], self._peer[up] = up, down
                    self._sel.register(down, selectors.EVENT_READ)
                    self._sel.register(up, selectors.EVENT_READ)
                elif s is self._wake_r:
                    s.recv(64)
                    for x in list(self._peer):
                        self._drop(x)
                    self._done.set()
                elif s in self._peer:
                    try:
                        data = s.recv(65536)
                        if data:
                            self._peer[s].sendall(data)
                            continue
                    except OSError:
                        pass
                    self._drop(s)

    def cut(self) -> None:
        """Resets every live connection, and returns once it has."""
        self._done.clear()
        self._wake_w.send(b"x")
        self._done.wait(5)

    def close(self) -> None:
        self.cut()
        self._closed = True
        self._ln.close()


def allow(req: PermissionRequest) -> PermissionResponse:
    for o in req.options:
        if o.kind == "allowOnce":
            return PermissionSelected(selected=o.option_id)
    return PermissionCancelled()


def dial(url: str) -> RemoteClient:
    return connect(url, TOKEN, permission_handler=allow, reconnect=ReconnectOptions(initial_delay=0.02, max_delay=0.2, max_attempts=50))


def test_r_remote_10_connect_runs_a_turn_with_a_permission(listening: str) -> None:
    c = dial(listening)
    try:
        open_ = c.session_open(spec=example_spec(), cwd=str(ROOT), timeout=CALL_TIMEOUT)
        out = c.session_prompt(session_id=open_.session_id, text="check the shell", timeout=CALL_TIMEOUT)
        assert out.stop_reason == "endTurn" and "it printed hello" in (out.text or "")
        c.session_close(session_id=open_.session_id, timeout=CALL_TIMEOUT)
    finally:
        c.close()


def test_r_remote_10_a_wrong_token_fails_at_once_without_retrying(listening: str) -> None:
    start = time.monotonic()
    with pytest.raises(A4aaError) as e:
        connect(listening, "not-the-token-0123456789")
    assert e.value.code == "peer_closed"
    assert "refused the token" in str(e.value) and "HTTP 401" in str(e.value)
    assert time.monotonic() - start < 5


def chunks(items: List[object]) -> str:
    return "".join(i.text for i in items if isinstance(i, MessageChunkEvent))


def test_r_remote_10_cuts_mid_turn_lose_nothing(listening: str) -> None:
    proxy = CutProxy(listening)
    c = dial(proxy.url)
    try:
        open_ = c.session_open(spec=example_spec(), cwd=str(ROOT), timeout=CALL_TIMEOUT)
        other = c.session_open(spec=example_spec(), cwd=str(ROOT), timeout=CALL_TIMEOUT)
        # A prompt sent with call() carries no operationId: a cut while it runs fails it.
        bare: List[BaseException] = []

        def run_bare() -> None:
            try:
                c.call("session/prompt", {"sessionId": other.session_id, "text": "/slow 40"}, timeout=CALL_TIMEOUT)
            except BaseException as e:  # noqa: BLE001 - recorded for the assertion
                bare.append(e)

        t = threading.Thread(target=run_bare)
        t.start()
        seen: List[object] = []
        n = 0
        cuts = [5, 12, 19]
        for item in c.prompt_stream(session_id=open_.session_id, text="/slow 30", timeout=CALL_TIMEOUT):
            seen.append(item)
            if isinstance(item, MessageChunkEvent) and item.text.startswith("chunk "):
                n += 1
                # Each cut on a connection that is up again (a catch-up delivers chunks in a burst).
                if cuts and n >= cuts[0] and c.reconnects == 3 - len(cuts):
                    cuts.pop(0)
                    proxy.cut()
        end = seen[-1]
        assert isinstance(end, TurnEnd) and end.outcome is not None and end.outcome.stop_reason == "endTurn"
        want = "".join(f"chunk {i} " for i in range(1, 31))
        got = chunks(seen)
        assert want in got and got.count("chunk 1 ") == 1, got
        assert c.reconnects >= 3
        # What the application read is the journal, event for event.
        h = c.session_history(session_id=open_.session_id, timeout=CALL_TIMEOUT)
        assert chunks([e.event for e in h.events]) == got
        assert len(h.events) == len(seen) - 1

        t.join(30)
        assert bare and isinstance(bare[0], A4aaError), bare
        assert bare[0].code == "peer_closed" and bare[0].uncertain_effect
        c.session_cancel(session_id=other.session_id, timeout=CALL_TIMEOUT)
        for sid in (open_.session_id, other.session_id):
            c.session_close(session_id=sid, timeout=CALL_TIMEOUT)
    finally:
        c.close()
        proxy.close()


def test_r_remote_10_async_client_connect_reconnects_mid_turn(listening: str) -> None:
    async def main() -> None:
        proxy = CutProxy(listening)

        async def allow_async(req: PermissionRequest) -> PermissionResponse:
            return allow(req)

        c = await AsyncClient.connect(proxy.url, TOKEN, permission_handler=allow_async, reconnect=ReconnectOptions(initial_delay=0.02, max_delay=0.2, max_attempts=50))
        try:
            open_ = await c.session_open(spec=example_spec(), cwd=str(ROOT), timeout=CALL_TIMEOUT)
            out = await c.session_prompt(session_id=open_.session_id, text="check the shell", timeout=CALL_TIMEOUT)
            assert "it printed hello" in (out.text or "")
            seen: List[object] = []
            n = 0
            async for item in c.prompt_stream(session_id=open_.session_id, text="/slow 20", timeout=CALL_TIMEOUT):
                seen.append(item)
                if isinstance(item, MessageChunkEvent) and item.text.startswith("chunk "):
                    n += 1
                    if n == 5:
                        proxy.cut()
            end = seen[-1]
            assert isinstance(end, TurnEnd) and end.outcome is not None and end.outcome.stop_reason == "endTurn"
            got = chunks(seen)
            assert "".join(f"chunk {i} " for i in range(1, 21)) in got and got.count("chunk 1 ") == 1, got
            assert c.reconnects == 1
            await c.session_close(session_id=open_.session_id, timeout=CALL_TIMEOUT)
        finally:
            await c.close()
            proxy.close()

    asyncio.run(main())
