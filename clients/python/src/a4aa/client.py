"""The runtime: spawn `a4aa serve`, speak NDJSON JSON-RPC 2.0 to it, route what it sends.

Standard library only. Calls are synchronous and thread-safe (call from many threads at
once); one reader thread reads the sidecar's stdout and never blocks on host code: events
go to unbounded per-session queues, permission requests to their own threads.
"""

from __future__ import annotations

import itertools
import json
import logging
import queue
import subprocess
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, IO, Any, Callable, Dict, Generator, Iterator, List, Literal, Mapping, Optional, Protocol, Sequence, Set, Tuple, Union, cast

from . import _generated_protocol as p
from ._codec import DecodeError
from ._generated_errors import RPC_ADAPTER_ERROR, RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND
from ._generated_methods import ENDS_EVENT_STREAM, HostMethods, SidecarHandler, dispatch_sidecar
from ._locate import sidecar_command
from .errors import A4aaError
from ._generated_protocol import AgentEvent, PermissionCancelled, PermissionRequest, PermissionResponse, PermissionSettledParams, SessionEventParams

if TYPE_CHECKING:
    from .remote import RemoteClient

log = logging.getLogger("a4aa")

PermissionHandler = Callable[[PermissionRequest], Optional[PermissionResponse]]
"""Answers permission/request: return PermissionSelected(selected=<option id>) or
PermissionCancelled(). None, an exception or no handler at all fail closed ("cancelled"); an
exception or no handler is decided by the sidecar's policy (decidedBy "policy")."""

_END = object()
_PROMPT = "session/prompt"


@dataclass(frozen=True)
class TurnEnd:
    """The end of a turn: not a wire event but a marker the client puts in the session's
    events() right after session/prompt answers (every event of a turn precedes its answer on
    the wire, R-CORE-6). `outcome` is the prompt's result; a prompt that failed (busy, not
    found, timed out…) gets a marker too, with `error` set (an A4aaError, or the TimeoutError
    or cancellation of a caller that gave up) and no outcome: no turn ran."""

    outcome: Optional[p.TurnOutcome] = None
    error: Optional[BaseException] = None
    type: Literal["turnEnd"] = "turnEnd"
    _id: int = field(default=0, repr=False, compare=False)


StreamItem = Union[AgentEvent, TurnEnd]


def _prompt_stream_step(item: Optional[StreamItem], id_: int, fut: "Future[Any]") -> Tuple[bool, Optional[StreamItem]]:
    """One item a prompt stream read: (whether the stream ends, what it yields, if anything).
    Raises the prompt's error; skips the turn ends of other callers' prompts."""
    if item is None:  # the connection ended first
        fut.result(0)
        return True, None
    if isinstance(item, TurnEnd):
        if item._id != id_:
            return False, None
        if item.error is not None:
            raise item.error
        return True, item
    return False, item
"""What events() yields: the session's events, and a TurnEnd after each prompt's answer."""


def _turn_end(id_: int, msg: Dict[str, Any]) -> TurnEnd:
    if "error" in msg:
        return TurnEnd(error=A4aaError.from_wire(msg["error"]), _id=id_)
    try:
        return TurnEnd(outcome=p.TurnOutcome.from_json(msg.get("result"), "TurnOutcome"), _id=id_)
    except DecodeError as e:
        return TurnEnd(error=A4aaError.peer_closed(True, f"session/prompt: {e}"), _id=id_)


class _Abandoned:
    """Prompt streams left before their turn's end (a `break` after a cancel, an exception):
    the rest of that turn's events is still queued in the session's stream. The next prompt
    stream of the session skips them, up to the abandoned turn's TurnEnd, so an old turn's
    text never leaks into a new one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: Dict[str, Set[int]] = {}

    def pending(self, session_id: str) -> Set[int]:
        with self._lock:
            return set(self._ids.get(session_id, ()))

    def add(self, session_id: str, id_: int) -> None:
        with self._lock:
            self._ids.setdefault(session_id, set()).add(id_)

    def skip(self, session_id: str, pending: Set[int], item: StreamItem) -> None:
        """Drops `item` of an abandoned turn; its TurnEnd ends that turn's leftovers."""
        if isinstance(item, TurnEnd) and item._id in pending:
            pending.discard(item._id)
            with self._lock:
                self._ids.get(session_id, set()).discard(item._id)


class _Sink(Protocol):
    """Where the reader thread puts a session's events (EventStream, or the asyncio one)."""

    def _push(self, ev: StreamItem) -> None: ...

    def _finish(self) -> None: ...


class EventStream:
    """One session's events, in the order the sidecar sent them, each turn's followed by a
    TurnEnd marker. Iterating blocks for the next item and ends after session/close succeeds
    or the connection ends."""

    def __init__(self) -> None:
        self._q: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._finished = False

    def _push(self, ev: StreamItem) -> None:
        with self._lock:
            if not self._finished:
                self._q.put(ev)

    def _finish(self) -> None:
        with self._lock:
            if not self._finished:
                self._finished = True
                self._q.put(_END)

    def get(self, timeout: Optional[float] = None) -> Optional[StreamItem]:
        """The next item, None once the stream has ended; TimeoutError after timeout seconds."""
        try:
            item = self._q.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no event within {timeout} s") from None
        if item is _END:
            self._q.put(_END)  # later reads end too
            return None
        ev: StreamItem = item
        return ev

    def __iter__(self) -> Iterator[StreamItem]:
        while True:
            ev = self.get()
            if ev is None:
                return
            yield ev


class _NoHandler(Exception):
    """The host has no permission handler: answered with an error, failed closed by the sidecar's policy."""


class _Router(SidecarHandler):
    def __init__(self, client: Client) -> None:
        self._client = client

    def on_session_event(self, params: SessionEventParams) -> None:
        self._client._sink(params.session_id)._push(params.event)

    def on_permission_request(self, params: PermissionRequest) -> PermissionResponse:
        handler = self._client._permission
        if handler is None:
            if not self._client._warned_no_handler:
                self._client._warned_no_handler = True
                log.warning("a4aa client: no permission_handler: permission requests fail closed (cancelled)")
            raise _NoHandler("the host has no permission handler")
        answer = handler(params)
        return PermissionCancelled() if answer is None else answer

    def on_permission_settled(self, params: PermissionSettledParams) -> None:
        # Another connection decided a request this one was asked (R-REMOTE-5); nothing waits on it here.
        return None


class Client(HostMethods):
    """One connection to a sidecar it spawns. Typed calls: ping(), session_open(spec=...),
    session_prompt(session_id=..., text=...), …; events(session_id) streams a session's
    events; close() ends the sidecar by EOF and returns its exit status."""

    def __init__(
        self,
        command: Optional[Sequence[str]] = None,
        *,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        permission_handler: Optional[PermissionHandler] = None,
        stderr: Union[None, int, IO[Any]] = None,
        max_line_bytes: int = 1 << 30,
        close_timeout: float = 30.0,
    ) -> None:
        """Spawns the sidecar: `command`, else the one sidecar_command() finds ($A4AA_SERVE,
        node_modules/.bin/a4aa here or above, a4aa on PATH; never npx); its
        stderr (logs) goes to stderr (default: this process's). Lines longer than
        max_line_bytes are skipped."""
        argv: List[str] = list(command) if command else sidecar_command(env, cwd)
        self._init_state(permission_handler, max_line_bytes, close_timeout)
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            bufsize=1 << 20,
            env=dict(env) if env is not None else None,
            cwd=cwd,
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin = self._proc.stdin
        self._reader = threading.Thread(target=self._read_loop, args=(self._proc.stdout,), name="a4aa-reader", daemon=True)
        self._reader.start()

    def _init_state(self, permission_handler: Optional[PermissionHandler], max_line_bytes: int, close_timeout: float) -> None:
        """What every connection holds, spawned or remote (remote.py)."""
        self._permission = permission_handler
        self._warned_no_handler = False
        self._max = max_line_bytes
        self._close_timeout = close_timeout
        self._lock = threading.Lock()
        self._abandoned = _Abandoned()
        self._wlock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: Dict[int, "Future[Any]"] = {}
        self._turns: Dict[int, str] = {}  # prompt request id -> its session
        self._streams: Dict[str, _Sink] = {}
        self._ended: Optional[str] = None
        self._router: _Router = _Router(self)

    @staticmethod
    def connect(url: str, token: Optional[str] = None, **options: Any) -> "RemoteClient":
        """A client of a sidecar reached over the network (`a4aa serve --listen`): see
        a4aa.connect()."""
        from .remote import connect

        return connect(url, token, **options)

    # -- calls ---------------------------------------------------------------------------

    def call(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        """Sends any request and returns its raw result; the typed methods are the usual way.
        Its params are sent as they are (a remote client adds no operationId)."""
        return self._request(method, params if params is not None else {}, timeout, raw=True)

    def _request(self, method: str, params: Dict[str, Any], timeout: Optional[float], raw: bool = False) -> Any:
        id_, fut, line = self._register(method, params, raw)
        self._send(id_, line)
        try:
            result = fut.result(timeout)
        except FutureTimeout:
            err = TimeoutError(f"{method}: no answer within {timeout} s")
            self._forget(id_, err)
            raise err from None
        self._answered(method, params)
        self._settled(id_, method, params, result, timeout)
        return result

    def _settled(self, id_: int, method: str, params: Dict[str, Any], result: Any, timeout: Optional[float]) -> None:
        """Call id_ succeeded (a remote client tracks its sessions here)."""

    # The steps of a call, shared with AsyncClient (which sends and waits its own way).

    def _register(self, method: str, params: Dict[str, Any], raw: bool = False) -> Tuple[int, "Future[Any]", bytes]:
        """A new id and the future its answer settles; the request's line. raw: sent by
        call() (a remote client's override adds an operationId to the others)."""
        fut: "Future[Any]" = Future()
        with self._lock:
            if self._ended is not None:
                raise A4aaError.peer_closed(False, self._ended)
            id_ = next(self._ids)
            self._pending[id_] = fut
            if method == _PROMPT:
                self._turns[id_] = str(params.get("sessionId"))
        head = '{"jsonrpc":"2.0","id":%d,"method":%s,"params":' % (id_, json.dumps(method))
        body = json.dumps(params, ensure_ascii=False, separators=(",", ":"))
        return id_, fut, head.encode() + body.encode("utf-8") + b"}\n"

    def _send(self, id_: int, line: bytes) -> None:
        try:
            self._write(line)
        except A4aaError as e:
            self._forget(id_, e)
            raise

    def _forget(self, id_: int, why: Optional[BaseException] = None) -> None:
        """The caller gave up on id_ (timeout, cancellation): its answer will be dropped. A
        prompt's end is marked all the same, with why."""
        with self._lock:
            self._pending.pop(id_, None)
            turn = self._turns.pop(id_, None)
        if turn is not None:
            self._sink(turn)._push(TurnEnd(error=why or TimeoutError("the caller gave up"), _id=id_))

    def _answered(self, method: str, params: Dict[str, Any]) -> None:
        if method in ENDS_EVENT_STREAM:
            self._sink(str(params.get("sessionId")))._finish()

    def _write(self, data: bytes) -> None:
        with self._wlock:
            try:
                self._stdin.write(data)
                self._stdin.flush()
            except (OSError, ValueError) as e:
                raise A4aaError.peer_closed(False, f"write failed: {e}") from e

    # -- events --------------------------------------------------------------------------

    def events(self, session_id: str) -> EventStream:
        """Session session_id's event stream, a TurnEnd after each turn's events. Events that
        arrive before session/open has answered are kept, not dropped; the queue is
        unbounded, so a slow reader never stalls other sessions or responses."""
        return cast(EventStream, self._sink(session_id))

    def prompt_stream(
        self,
        *,
        session_id: p.SessionId,
        text: Optional[str] = None,
        content: Optional[List[p.ContentBlock]] = None,
        model: Optional[str] = None,
        effort: Optional[p.Effort] = None,
        timeout: Optional[float] = None,
    ) -> Generator[StreamItem, None, None]:
        """session/prompt as one stream: yields the session's events up to this turn's end,
        then its TurnEnd (`.outcome`); raises the prompt's error instead. It reads
        events(session_id): read that nowhere else meanwhile. timeout bounds each wait.
        content: blocks after the text (a4aa.content: image_file, file_resource, file_link)."""
        params = p.SessionPromptParams(session_id=session_id, text=text, content=content, model=model, effort=effort).to_json()
        stream = self.events(session_id)
        # The rest of an abandoned turn of this session is read and dropped first (the turn
        # was cancelled, or it ends by itself): its text never shows in this one.
        leftovers = self._abandoned.pending(session_id)
        while leftovers:
            item = stream.get(timeout)
            if item is None:
                break
            self._abandoned.skip(session_id, leftovers, item)
        id_, fut, line = self._register(_PROMPT, params)
        self._send(id_, line)
        finished = False
        try:
            while True:
                try:
                    item = stream.get(timeout)
                except TimeoutError:
                    err = TimeoutError(f"{_PROMPT}: no answer within {timeout} s")
                    self._forget(id_, err)
                    raise err from None
                done, out = _prompt_stream_step(item, id_, fut)
                if out is not None:
                    yield out
                if done:
                    finished = True
                    return
        finally:
            if not finished:
                self._abandoned.add(session_id, id_)

    def _new_sink(self) -> _Sink:
        return EventStream()

    def _sink(self, session_id: str) -> _Sink:
        with self._lock:
            s = self._streams.get(session_id)
            if s is None:
                s = self._streams[session_id] = self._new_sink()
                if self._ended is not None:
                    s._finish()
            return s

    # -- reading -------------------------------------------------------------------------

    def _read_loop(self, out: IO[bytes]) -> None:
        cause = "the sidecar closed its stdout"
        try:
            while True:
                line = out.readline(self._max + 1)
                if not line:
                    break
                if len(line) > self._max and not line.endswith(b"\n"):
                    while True:  # skip the rest of an oversized line without holding it
                        more = out.readline(1 << 20)
                        if not more or more.endswith(b"\n"):
                            break
                    log.warning("a4aa client: skipped an incoming line over %d bytes", self._max)
                    continue
                self._handle_line(line)
        except Exception as e:  # a broken pipe, a closed file
            cause = f"read failed: {e}"
        finally:
            self._end(cause)

    def _handle_line(self, line: bytes) -> None:
        line = line.strip()
        if not line:
            return
        try:
            msg = json.loads(line)
        except ValueError as e:
            log.warning("a4aa client: ignored a line that is not JSON: %s", e)
            return
        if not isinstance(msg, dict):
            log.warning("a4aa client: ignored a line that is not a JSON object")
            return
        method = msg.get("method")
        if isinstance(method, str):
            if "id" in msg:
                threading.Thread(target=self._handle_request, args=(msg["id"], method, msg.get("params")), daemon=True).start()
            else:
                self._handle_notification(method, msg.get("params"))
            return
        id_ = msg.get("id")
        with self._lock:
            fut = self._pending.pop(id_, None) if isinstance(id_, int) else None
            turn = self._turns.pop(id_, None) if isinstance(id_, int) and fut is not None else None
        if fut is not None:
            self._on_answer(cast(int, id_))
        if turn is not None:  # before the answer settles: a host reading events() sees the marker first
            self._sink(turn)._push(_turn_end(cast(int, id_), msg))
        if fut is None or not fut.set_running_or_notify_cancel():
            return  # its caller gave up (timeout, an asyncio task cancelled)
        if "error" in msg:
            fut.set_exception(A4aaError.from_wire(msg["error"]))
        else:
            fut.set_result(msg.get("result"))

    def _on_answer(self, id_: int) -> None:
        """Request id_ was answered (a remote client forgets what it would send again)."""

    def _handle_notification(self, method: str, params: Any) -> None:
        try:
            known, _ = dispatch_sidecar(self._router, method, params)
        except DecodeError as e:
            log.warning("a4aa client: %s: %s", method, e)
            return
        if not known:
            log.warning("a4aa client: ignored unknown notification %s", method)

    def _handle_request(self, id_: Any, method: str, params: Any) -> None:
        try:
            known, result = dispatch_sidecar(self._router, method, params)
            if known:
                resp: Dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "result": result}
            else:
                resp = {"jsonrpc": "2.0", "id": id_, "error": {"code": RPC_METHOD_NOT_FOUND, "message": f"method not found: {method}"}}
        except DecodeError as e:
            resp = {"jsonrpc": "2.0", "id": id_, "error": {"code": RPC_INVALID_PARAMS, "message": str(e)}}
        except _NoHandler as e:
            resp = {"jsonrpc": "2.0", "id": id_, "error": {"code": RPC_ADAPTER_ERROR, "message": str(e)}}
        except Exception as e:  # the host's handler failed: the sidecar answers the agent "cancelled"
            log.warning("a4aa client: %s handler failed: %r", method, e)
            resp = {"jsonrpc": "2.0", "id": id_, "error": {"code": RPC_ADAPTER_ERROR, "message": f"handler failed: {e}"}}
        try:
            self._write(json.dumps(resp, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        except A4aaError:
            pass

    def _end(self, cause: str) -> None:
        with self._lock:
            self._ended = cause
            pending, self._pending = self._pending, {}
            self._turns = {}
            streams = list(self._streams.values())
        for fut in pending.values():
            if fut.set_running_or_notify_cancel():
                fut.set_exception(A4aaError.peer_closed(True, cause))
        for s in streams:
            s._finish()

    # -- closing -------------------------------------------------------------------------

    def close(self, timeout: Optional[float] = None) -> int:
        """Closes the sidecar's stdin (EOF): it closes every session and exits. Waits for
        the exit (killing the sidecar after timeout, default close_timeout) and returns the
        exit status. Calls still pending fail with peer_closed."""
        with self._wlock:
            try:
                self._stdin.close()
            except OSError:
                pass
        try:
            code = self._proc.wait(self._close_timeout if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            code = self._proc.wait()
        self._reader.join(10)
        return code

    @property
    def returncode(self) -> Optional[int]:
        """The sidecar's exit status, None while it runs."""
        return self._proc.poll()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
