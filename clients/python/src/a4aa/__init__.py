"""Host client of the a4aa sidecar (protocol a4aa.v1), standard library only.

    from a4aa import Client
    with Client() as client:          # finds the sidecar: see sidecar_command()
        print(client.ping().version)

    from a4aa import AsyncClient          # the same calls for asyncio
    async with AsyncClient() as client:
        print((await client.ping()).version)

The _generated_*.py modules are generated from schema/a4aa.v1.openrpc.json by
`npm run codegen`; the rest is the runtime.
"""

from . import _generated_protocol as protocol
from . import content
from ._codec import DecodeError
from ._generated_methods import AsyncHostMethods, HostMethods, SidecarHandler
from ._locate import SidecarNotFound, sidecar_command
from .aio import AsyncClient, AsyncEventStream, AsyncPermissionHandler
from .client import Client, EventStream, PermissionHandler, StreamItem, TurnEnd
from .errors import A4aaError
from .remote import ReconnectOptions, RemoteClient, connect
from ._generated_protocol import *  # noqa: F401,F403  (every protocol type)

__all__ = [
    "A4aaError",
    "AsyncClient",
    "AsyncEventStream",
    "AsyncHostMethods",
    "AsyncPermissionHandler",
    "Client",
    "DecodeError",
    "EventStream",
    "HostMethods",
    "PermissionHandler",
    "ReconnectOptions",
    "RemoteClient",
    "SidecarHandler",
    "SidecarNotFound",
    "StreamItem",
    "TurnEnd",
    "connect",
    "content",
    "sidecar_command",
    "protocol",
    *protocol.__all__,
]
