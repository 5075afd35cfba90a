"""A small RFC 6455 client on the standard library (socket, ssl): what connect() needs to
reach `a4aa serve --listen ws://…|wss://…`. Text frames, masked as a client must;
fragmented messages reassembled; pings answered; a close frame answered and ended; a
message over the size bound ends the connection. No extensions, no subprotocols."""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
import threading
from typing import Callable, Mapping, Optional, Tuple
from urllib.parse import urlsplit

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_CONT, _TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class HandshakeRefused(Exception):
    """The sidecar answered the upgrade with HTTP `status` (401: the token, 403: the Origin,
    404: the path): reconnecting does not help."""

    def __init__(self, url: str, status: int) -> None:
        why = {
            401: ": the sidecar refused the token; pass the TOKEN of one NAME:TOKEN line of its --auth-token-file as token=",
            403: ": the sidecar refused this connection's Origin header (its --allow-origin)",
            404: ": no a4aa listener at this path (use the URL `a4aa serve` printed)",
        }.get(status, "")
        super().__init__(f"{url}: the upgrade was answered HTTP {status}{why}")
        self.url = url
        self.status = status


class ConnectionLost(Exception):
    """The connection ended (closed, reset, or a protocol error)."""


def _target(url: str) -> Tuple[str, str, int, str]:
    u = urlsplit(url)
    if u.scheme not in ("ws", "wss"):
        raise ValueError(f"{url!r}: want a ws:// or wss:// URL (as `a4aa serve --listen` prints it)")
    host = u.hostname or ""
    port = u.port or (443 if u.scheme == "wss" else 80)
    path = (u.path or "/") + (f"?{u.query}" if u.query else "")
    return u.scheme, host, port, path


class WebSocket:
    """One client connection. recv_message() is called by one thread; send_text(), ping()
    and close() by any."""

    def __init__(self, sock: socket.socket, rest: bytes, max_bytes: int) -> None:
        self._sock = sock
        self._buf = bytearray(rest)
        self._wlock = threading.Lock()
        self._max = max_bytes
        self._closed = False

    @classmethod
    def connect(
        cls,
        url: str,
        headers: Mapping[str, str],
        timeout: float,
        ssl_context: Optional[ssl.SSLContext] = None,
        max_bytes: int = 1 << 30,
    ) -> WebSocket:
        scheme, host, port, path = _target(url)
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as e:
            raise ConnectionLost(f"cannot connect to {url}: {e}") from e
        try:
            if scheme == "wss":
                ctx = ssl_context or ssl.create_default_context()
                sock = ctx.wrap_socket(sock, server_hostname=host)
            key = base64.b64encode(os.urandom(16)).decode()
            lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
            for k, v in headers.items():
                if "\r" in k + v or "\n" in k + v:
                    raise ValueError(f"header {k!r} holds a line break")
                lines.append(f"{k}: {v}")
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            data = b""
            while b"\r\n\r\n" not in data:
                more = sock.recv(4096)
                if not more:
                    raise ConnectionLost(f"cannot connect to {url}: the connection closed during the upgrade")
                data += more
                if len(data) > 65536:
                    raise ConnectionLost(f"cannot connect to {url}: the upgrade's answer is too long")
            head, rest = data.split(b"\r\n\r\n", 1)
            status_line, *header_lines = head.decode("latin-1").split("\r\n")
            parts = status_line.split(" ", 2)
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            if status != 101:
                raise HandshakeRefused(url, status)
            got = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines)}
            want = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
            if got.get("sec-websocket-accept") != want or got.get("upgrade", "").lower() != "websocket":
                raise ConnectionLost(f"cannot connect to {url}: the answer is not a WebSocket upgrade (Sec-WebSocket-Accept does not match)")
            sock.settimeout(None)
            return cls(sock, rest, max_bytes)
        except BaseException:
            sock.close()
            raise

    def _frame(self, op: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | op, 0x80 | n)
        elif n <= 0xFFFF:
            head = struct.pack("!BBH", 0x80 | op, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | op, 0x80 | 127, n)
        mask = os.urandom(4)
        # XOR with the repeated mask, as one big-integer operation (fast for long payloads).
        m = (mask * (n // 4 + 1))[:n]
        body = (int.from_bytes(payload, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big") if n else b""
        with self._wlock:
            if self._closed and op != _CLOSE:
                raise ConnectionLost("the connection is closed")
            try:
                self._sock.sendall(head + mask + body)
            except OSError as e:
                raise ConnectionLost(f"write failed: {e}") from e

    def send_text(self, payload: bytes) -> None:
        self._frame(_TEXT, payload)

    def ping(self) -> None:
        self._frame(_PING, b"")

    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            try:
                more = self._sock.recv(max(65536, n - len(self._buf)))
            except OSError as e:
                raise ConnectionLost(str(e)) from e
            if not more:
                raise ConnectionLost("the connection closed")
            self._buf += more
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def recv_message(self, on_control: Optional[Callable[[], None]] = None) -> bytes:
        """The next text (or binary) message; pings are answered. Raises ConnectionLost when
        the connection ends (a close frame is answered first)."""
        msg = bytearray()
        started = False
        while True:
            b0, b1 = self._read(2)
            fin, op = b0 & 0x80, b0 & 0x0F
            if b1 & 0x80:
                raise ConnectionLost("the sidecar sent a masked frame (a server must not)")
            n = b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._read(8))
            if op >= _CLOSE:
                if n > 125 or not fin:
                    raise ConnectionLost("the sidecar sent a malformed control frame")
                payload = self._read(n)
                if on_control:
                    on_control()
                if op == _PING:
                    try:
                        self._frame(_PONG, payload)
                    except ConnectionLost:
                        pass
                elif op == _CLOSE:
                    try:
                        self._frame(_CLOSE, payload)
                    except ConnectionLost:
                        pass
                    self.abort()
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                    raise ConnectionLost(f"the sidecar closed the connection ({code} {payload[2:].decode('utf-8', 'replace')})".rstrip())
                continue
            if op == _CONT and not started:
                raise ConnectionLost("the sidecar sent a continuation frame outside a message")
            if op != _CONT and started:
                raise ConnectionLost("the sidecar started a message inside another")
            started = True
            if len(msg) + n > self._max:
                raise ConnectionLost(f"the sidecar sent a message over {self._max} bytes (max_message_bytes)")
            msg += self._read(n)
            if fin:
                return bytes(msg)

    def close(self) -> None:
        """Sends a close frame (1000) and closes the connection."""
        try:
            self._frame(_CLOSE, struct.pack("!H", 1000))
        except ConnectionLost:
            pass
        self.abort()

    def abort(self) -> None:
        """Closes the connection without a close frame (a lost connection)."""
        with self._wlock:
            self._closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
