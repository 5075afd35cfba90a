"""connect() (R-REMOTE-10): a Client of a sidecar reached over the network (`a4aa serve
--listen ws://…|wss://…`), one JSON-RPC message a text frame, a bearer token on the
upgrade. The calls and events() are the spawned client's. A lost connection is reconnected
with backoff; every session the client had is attached again from the last seq it
delivered, and the session_open / session_prompt / prompt_stream calls in flight are sent
again with the operationId the client gave them, so each session's events go on with no gap
and no duplicate and a turn's answer arrives once. A call() in flight (params as they are,
no operationId) fails peer_closed with uncertain_effect."""

from __future__ import annotations

import logging
import random
import ssl
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Set, Tuple

from ._generated_protocol import SessionEventParams
from .client import _PROMPT, Client, PermissionHandler, TurnEnd, _Router
from ._websocket import ConnectionLost, HandshakeRefused, WebSocket
from .errors import A4aaError

log = logging.getLogger("a4aa")

_OPEN = "session/open"
_ATTACH = "session/attach"


@dataclass
class ReconnectOptions:
    """How a lost connection is reconnected: the first wait initial_delay seconds, doubling
    (jittered, 50–100 %) up to max_delay, at most max_attempts attempts and max_time seconds."""

    max_attempts: int = 10
    max_time: float = 60.0
    initial_delay: float = 0.1
    max_delay: float = 5.0


class _RemoteRouter(_Router):
    def __init__(self, client: RemoteClient) -> None:
        super().__init__(client)
        self._remote = client

    def on_session_event(self, params: SessionEventParams) -> None:
        # An event already delivered (before a reconnection) is not delivered again.
        if self._remote._fresh(params.session_id, params.seq):
            super().on_session_event(params)


class RemoteClient(Client):
    """A client of a sidecar's WebSocket listener; made by connect()."""

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        *,
        headers: Optional[Mapping[str, str]] = None,
        permission_handler: Optional[PermissionHandler] = None,
        connect_timeout: float = 10.0,
        reconnect: Optional[ReconnectOptions] = None,
        ping_interval: float = 15.0,
        pong_timeout: float = 30.0,
        max_message_bytes: int = 1 << 30,
        ssl_context: Optional[ssl.SSLContext] = None,
        close_timeout: float = 30.0,
    ) -> None:
        self._init_state(permission_handler, max_message_bytes, close_timeout)
        self._router = _RemoteRouter(self)
        self.url = url
        self._headers = dict(headers or {})
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._connect_timeout = connect_timeout
        self._reconnect_opts = reconnect or ReconnectOptions()
        self._ping_interval = ping_interval
        self._pong_timeout = pong_timeout
        self._ssl = ssl_context
        self._rlock = threading.Lock()
        self._sessions: Dict[str, int] = {}  # session id -> last seq delivered
        self._resendable: Dict[int, bytes] = {}  # requests in flight with an operationId
        self._resent: Set[int] = set()
        self._was_resent: Set[int] = set()
        self._closing = False
        self._finished = threading.Event()
        self._last_recv = time.monotonic()
        self.reconnects = 0
        self._ws: Optional[WebSocket] = self._open_ws()  # a refused token raises here
        threading.Thread(target=self._read_loop_ws, args=(self._ws,), name="a4aa-reader", daemon=True).start()
        threading.Thread(target=self._heartbeat, name="a4aa-heartbeat", daemon=True).start()

    def _open_ws(self) -> WebSocket:
        try:
            return WebSocket.connect(self.url, self._headers, self._connect_timeout, self._ssl, self._max)
        except HandshakeRefused as e:
            raise A4aaError.peer_closed(False, str(e)) from e
        except ConnectionLost as e:
            raise A4aaError.peer_closed(False, str(e)) from e

    # -- sending -------------------------------------------------------------------------

    def _register(self, method: str, params: Dict[str, Any], raw: bool = False) -> Tuple[int, Any, bytes]:
        if not raw and method in (_OPEN, _PROMPT) and "operationId" not in params:
            params = {**params, "operationId": str(uuid.uuid4())}
        if method == _ATTACH and isinstance(params.get("afterSeq"), int):
            # Where its events resume, before the catch-up can be read.
            with self._rlock:
                self._sessions[str(params.get("sessionId"))] = params["afterSeq"]
        id_, fut, line = super()._register(method, params, raw)
        if not raw and "operationId" in params:
            with self._rlock:
                self._resendable[id_] = line
        return id_, fut, line

    def _send(self, id_: int, line: bytes) -> None:
        with self._rlock:
            resendable = id_ in self._resendable
        try:
            self._write(line)
        except A4aaError:
            if not resendable:
                self._forget(id_, None)
                raise
            # Sent again once the connection is back.

    def _write(self, data: bytes) -> None:
        ws = self._ws
        if ws is None:
            raise A4aaError.peer_closed(False, f"the connection to {self.url} is being re-established")
        try:
            ws.send_text(data.rstrip(b"\n"))
        except ConnectionLost as e:
            raise A4aaError.peer_closed(False, str(e)) from e

    def _on_answer(self, id_: int) -> None:
        with self._rlock:
            self._resendable.pop(id_, None)
            if id_ in self._resent:
                self._resent.discard(id_)
                self._was_resent.add(id_)

    def _forget(self, id_: int, why: Optional[BaseException] = None) -> None:
        super()._forget(id_, why)
        with self._rlock:
            self._resendable.pop(id_, None)

    def _settled(self, id_: int, method: str, params: Dict[str, Any], result: Any, timeout: Optional[float]) -> None:
        self._track(method, params, result)
        with self._rlock:
            resent = id_ in self._was_resent
            self._was_resent.discard(id_)
        if resent and method == _OPEN and isinstance(result, dict):
            # A repeated open answers as the first did but attaches nothing: attach here.
            sid = str(result.get("sessionId"))
            with self._rlock:
                seq = self._sessions.get(sid, 0)
            self._request(_ATTACH, {"sessionId": sid, "afterSeq": seq}, timeout, True)

    def _track(self, method: str, params: Dict[str, Any], result: Any) -> None:
        with self._rlock:
            if method == _OPEN and isinstance(result, dict):
                self._sessions.setdefault(str(result.get("sessionId")), 0)
            elif method == _ATTACH:
                sid = str(params.get("sessionId"))
                if sid not in self._sessions and isinstance(result, dict):
                    self._sessions[sid] = int(result.get("lastSeq", 0))
            elif method in ("session/close", "session/detach"):
                self._sessions.pop(str(params.get("sessionId")), None)

    def _fresh(self, session_id: str, seq: int) -> bool:
        with self._rlock:
            last = self._sessions.get(session_id)
            if last is not None and seq <= last:
                return False
            self._sessions[session_id] = seq
            return True

    # -- reading, losing, reconnecting ---------------------------------------------------

    def _read_loop_ws(self, ws: WebSocket) -> None:
        def touch() -> None:
            self._last_recv = time.monotonic()

        while True:
            try:
                msg = ws.recv_message(touch)
            except ConnectionLost as e:
                self._lost(ws, str(e))
                return
            touch()
            self._handle_line(msg)

    def _heartbeat(self) -> None:
        while not self._finished.wait(self._ping_interval):
            ws = self._ws
            if ws is None:
                continue
            silent = time.monotonic() - self._last_recv
            if silent > self._pong_timeout:
                log.warning("a4aa client: nothing from %s for %.1f s; taking the connection as lost", self.url, silent)
                ws.abort()
                continue
            try:
                ws.ping()
            except ConnectionLost:
                pass

    def _lost(self, ws: WebSocket, why: str) -> None:
        with self._rlock:
            if self._ws is not ws:
                return
            self._ws = None
            closing = self._closing
        if closing:
            self._finish("the client closed the connection")
            return
        self._fail_unresendable(f"the connection to {self.url} was lost ({why}) with the request in flight; it carried no operationId, so it may or may not have run")
        log.warning("a4aa client: lost the connection to %s (%s); reconnecting", self.url, why)
        threading.Thread(target=self._reconnect, args=(why,), name="a4aa-reconnect", daemon=True).start()

    def _fail_unresendable(self, cause: str) -> None:
        with self._lock, self._rlock:
            gone = [i for i in self._pending if i not in self._resendable]
            futs = [(i, self._pending.pop(i), self._turns.pop(i, None)) for i in gone]
        for i, fut, turn in futs:
            err = A4aaError.peer_closed(True, cause)
            if turn is not None:
                self._sink(turn)._push(TurnEnd(error=err, _id=i))
            if fut.set_running_or_notify_cancel():
                fut.set_exception(err)

    def _reconnect(self, why: str) -> None:
        o = self._reconnect_opts
        start = time.monotonic()
        last = why
        for attempt in range(1, o.max_attempts + 1):
            delay = min(o.max_delay, o.initial_delay * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            if time.monotonic() - start + delay > o.max_time or self._closing:
                break
            time.sleep(delay)
            if self._closing:
                break
            try:
                ws = WebSocket.connect(self.url, self._headers, self._connect_timeout, self._ssl, self._max)
            except HandshakeRefused as e:
                last = str(e)
                break
            except ConnectionLost as e:
                last = str(e)
                continue
            with self._rlock:
                self._ws = ws
            self._last_recv = time.monotonic()
            threading.Thread(target=self._read_loop_ws, args=(ws,), name="a4aa-reader", daemon=True).start()
            try:
                self._reattach()
            except A4aaError as e:
                if e.code == "peer_closed":
                    return  # lost again: _lost() reconnects from the start
                raise
            self.reconnects += 1
            log.warning("a4aa client: reconnected to %s (attempt %d); %d session(s) attached again", self.url, attempt, len(self._sessions))
            return
        self._finish(f"lost the connection to {self.url} ({why}) and could not reconnect: {last}")

    def _reattach(self) -> None:
        with self._rlock:
            sessions = dict(self._sessions)
        for sid, seq in sessions.items():
            try:
                self._request(_ATTACH, {"sessionId": sid, "afterSeq": seq}, self._connect_timeout, True)
            except A4aaError as e:
                if e.code == "peer_closed":
                    raise
                # Gone (closed, detach TTL) or too far behind: that session's events end here.
                log.warning("a4aa client: could not attach session %s again: %s; its events end here", sid, e)
                with self._rlock:
                    self._sessions.pop(sid, None)
                self._sink(sid)._finish()
        with self._rlock:
            again = dict(self._resendable)
            self._resent.update(again)
        for line in again.values():
            self._write(line)

    def _finish(self, cause: str) -> None:
        if not self._finished.is_set():
            self._finished.set()
            self._end(cause)

    # -- closing -------------------------------------------------------------------------

    def close(self, timeout: Optional[float] = None) -> int:
        """Closes the connection (no reconnection); calls still pending fail peer_closed. The
        sessions stay on the sidecar, detached, until its --detach-ttl (close them first to
        end them now). Returns 0."""
        with self._rlock:
            self._closing = True
            ws = self._ws
        if ws is not None:
            ws.close()
        else:
            self._finish("the client closed the connection")
        self._finished.wait(self._close_timeout if timeout is None else timeout)
        return 0

    @property
    def returncode(self) -> Optional[int]:
        return 0 if self._finished.is_set() else None

    @property
    def pid(self) -> int:
        raise AttributeError("a remote sidecar has no pid here")


def connect(url: str, token: Optional[str] = None, **options: Any) -> RemoteClient:
    """Connects to a sidecar's WebSocket listener: `connect("ws://127.0.0.1:7700", token)`;
    options are RemoteClient's (headers, permission_handler, reconnect, ping_interval, …).
    A refused token raises A4aaError (peer_closed, "refused the token (HTTP 401)") at once."""
    return RemoteClient(url, token, **options)


__all__ = ["RemoteClient", "ReconnectOptions", "connect"]
