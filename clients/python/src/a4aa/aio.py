"""The client for asyncio: AsyncClient, the same typed calls as Client, each a coroutine.

It runs on Client's runtime (one reader thread, thread-safe state), so both behave the
same on the wire; what differs is how a host waits:
- a call awaits an asyncio future settled by the reader thread, and is cancellable;
- requests are written by one writer thread, in the order they were made, so a large
  prompt never blocks the event loop and a cancel is never written before its prompt;
- events(session_id) is an async iterator fed by the reader thread;
- the permission handler runs on the event loop (a coroutine function or a plain one).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any, AsyncGenerator, AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Union, cast

from ._generated_methods import AsyncHostMethods
from . import _generated_protocol as p
from .client import _PROMPT, Client, StreamItem, _prompt_stream_step
from .remote import RemoteClient
from ._generated_protocol import PermissionRequest, PermissionResponse

AsyncPermissionHandler = Callable[
    [PermissionRequest], Union[Optional[PermissionResponse], Awaitable[Optional[PermissionResponse]]]
]
"""Answers permission/request on the event loop: a coroutine function or a plain function
returning PermissionSelected(...) or PermissionCancelled(). None, an exception or no
handler at all answer "cancelled"."""

_END = object()


class AsyncEventStream:
    """One session's events, in the order the sidecar sent them, each turn's followed by a
    TurnEnd marker: `async for ev in stream`. It ends after session/close succeeds or the
    connection ends."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._q: "asyncio.Queue[Any]" = asyncio.Queue()
        self._lock = threading.Lock()
        self._finished = False

    def _put(self, item: Any) -> None:
        try:
            self._loop.call_soon_threadsafe(self._q.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is left to read
            pass

    def _push(self, ev: StreamItem) -> None:
        with self._lock:
            if not self._finished:
                self._put(ev)

    def _finish(self) -> None:
        with self._lock:
            if not self._finished:
                self._finished = True
                self._put(_END)

    async def get(self, timeout: Optional[float] = None) -> Optional[StreamItem]:
        """The next item, None once the stream has ended; TimeoutError after timeout seconds."""
        try:
            item = await asyncio.wait_for(self._q.get(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no event within {timeout} s") from None
        if item is _END:
            self._q.put_nowait(_END)  # later reads end too
            return None
        ev: StreamItem = item
        return ev

    def __aiter__(self) -> AsyncEventStream:
        return self

    async def __anext__(self) -> StreamItem:
        ev = await self.get()
        if ev is None:
            raise StopAsyncIteration
        return ev


class _Runtime(Client):
    """Client's runtime with asyncio event streams."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *args: Any, **kwargs: Any) -> None:
        self._loop = loop
        super().__init__(*args, **kwargs)

    def _new_sink(self) -> AsyncEventStream:
        return AsyncEventStream(self._loop)


class _RemoteRuntime(_Runtime, RemoteClient):
    """RemoteClient's runtime with asyncio event streams (AsyncClient.connect)."""


class AsyncClient(AsyncHostMethods):
    """One connection to a sidecar it spawns, for asyncio. Create it inside a running event
    loop (`async with AsyncClient() as client:`). Typed calls: await ping(),
    session_open(spec=...), session_prompt(session_id=..., text=...), …;
    events(session_id) is an async iterator; await close() ends the sidecar by EOF and
    returns its exit status."""

    def __init__(
        self,
        command: Optional[Sequence[str]] = None,
        *,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        permission_handler: Optional[AsyncPermissionHandler] = None,
        stderr: Union[None, int, IO[Any]] = None,
        max_line_bytes: int = 1 << 30,
        close_timeout: float = 30.0,
    ) -> None:
        """Spawns the sidecar (command, else the one sidecar_command() finds); see Client."""
        self._loop = asyncio.get_running_loop()
        self._handler = permission_handler
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="a4aa-writer")
        self._closing: Optional["asyncio.Future[int]"] = None
        self._c: Client = _Runtime(
            self._loop,
            command,
            env=env,
            cwd=cwd,
            permission_handler=self._answer_on_loop if permission_handler is not None else None,
            stderr=stderr,
            max_line_bytes=max_line_bytes,
            close_timeout=close_timeout,
        )

    @classmethod
    async def connect(cls, url: str, token: Optional[str] = None, *, permission_handler: Optional[AsyncPermissionHandler] = None, **options: Any) -> AsyncClient:
        """A client of a sidecar reached over the network (`a4aa serve --listen`), for asyncio:
        the same calls, reconnecting as a4aa.connect() does (options are RemoteClient's). A
        refused token raises A4aaError (peer_closed) at once."""
        self = cls.__new__(cls)
        self._loop = asyncio.get_running_loop()
        self._handler = permission_handler
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="a4aa-writer")
        self._closing = None
        answer = self._answer_on_loop if permission_handler is not None else None
        try:
            self._c = await self._loop.run_in_executor(None, lambda: _RemoteRuntime(self._loop, url, token, permission_handler=answer, **options))
        except BaseException:
            self._writer.shutdown(wait=False)
            raise
        return self

    def _answer_on_loop(self, req: PermissionRequest) -> Optional[PermissionResponse]:
        """Runs in the runtime's thread for this request: hands it to the loop and waits."""
        if self._handler is None:
            return None
        handler: AsyncPermissionHandler = self._handler

        async def answer() -> Optional[PermissionResponse]:
            result = handler(req)
            if inspect.isawaitable(result):
                result = await result
            return cast(Optional[PermissionResponse], result)

        return asyncio.run_coroutine_threadsafe(answer(), self._loop).result()

    async def call(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        """Sends any request and returns its raw result; the typed methods are the usual way."""
        return await self._request(method, params if params is not None else {}, timeout, raw=True)

    async def _request(self, method: str, params: Dict[str, Any], timeout: Optional[float], raw: bool = False) -> Any:
        c = self._c
        id_, fut, line = c._register(method, params, raw)
        try:
            await self._loop.run_in_executor(self._writer, c._send, id_, line)
            result = await asyncio.wait_for(asyncio.wrap_future(fut, loop=self._loop), timeout)
        except asyncio.TimeoutError:
            err = TimeoutError(f"{method}: no answer within {timeout} s")
            c._forget(id_, err)
            raise err from None
        except asyncio.CancelledError as e:
            c._forget(id_, e)
            raise
        c._answered(method, params)
        if isinstance(c, RemoteClient):
            # A remote runtime tracks its sessions here (and may attach one: not on the loop).
            await self._loop.run_in_executor(self._writer, c._settled, id_, method, params, result, timeout)
        return result

    def events(self, session_id: str) -> AsyncEventStream:
        """Session session_id's events; those that arrive before session/open has answered
        are kept, not dropped."""
        return cast(AsyncEventStream, self._c._sink(session_id))

    async def prompt_stream(
        self,
        *,
        session_id: p.SessionId,
        text: Optional[str] = None,
        content: Optional[List[p.ContentBlock]] = None,
        model: Optional[str] = None,
        effort: Optional[p.Effort] = None,
        timeout: Optional[float] = None,
    ) -> AsyncGenerator[StreamItem, None]:
        """session/prompt as one stream (`async for`): the session's events up to this turn's
        end, then its TurnEnd (`.outcome`); raises the prompt's error instead. It reads
        events(session_id): read that nowhere else meanwhile. timeout bounds each wait.
        content: blocks after the text (a4aa.content: image_file, file_resource, file_link)."""
        c = self._c
        params = p.SessionPromptParams(session_id=session_id, text=text, content=content, model=model, effort=effort).to_json()
        stream = self.events(session_id)
        # The rest of an abandoned turn of this session is read and dropped first (see Client).
        leftovers = c._abandoned.pending(session_id)
        while leftovers:
            left = await stream.get(timeout)
            if left is None:
                break
            c._abandoned.skip(session_id, leftovers, left)
        id_, fut, line = c._register(_PROMPT, params)
        await self._loop.run_in_executor(self._writer, c._send, id_, line)
        finished = False
        try:
            while True:
                item = await stream.get(timeout)
                done, out = _prompt_stream_step(item, id_, fut)
                if out is not None:
                    yield out
                if done:
                    finished = True
                    return
        except (TimeoutError, asyncio.CancelledError) as e:
            c._forget(id_, e)
            raise
        finally:
            if not finished:
                c._abandoned.add(session_id, id_)

    async def close(self, timeout: Optional[float] = None) -> int:
        """Closes the sidecar's stdin (EOF) after every request already made has been
        written; waits for the exit (killing the sidecar after timeout, default
        close_timeout) and returns the exit status. Calls still pending fail with
        peer_closed. Closing again returns the same status."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close(timeout))
        return await asyncio.shield(self._closing)

    async def _close(self, timeout: Optional[float]) -> int:
        try:
            return await self._loop.run_in_executor(self._writer, self._c.close, timeout)
        finally:
            self._writer.shutdown(wait=False)

    @property
    def returncode(self) -> Optional[int]:
        """The sidecar's exit status, None while it runs."""
        return self._c.returncode

    @property
    def pid(self) -> int:
        return self._c.pid

    @property
    def reconnects(self) -> int:
        """How many times a connected client reconnected (0 for a spawned one)."""
        return self._c.reconnects if isinstance(self._c, RemoteClient) else 0

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
