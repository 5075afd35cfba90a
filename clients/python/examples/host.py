"""Drives an ACP agent through `a4aa serve` (found by sidecar_command()): python host.py node agent.js"""

import sys

from a4aa import (
    AcpAgentSpec,
    Client,
    Command,
    MessageChunkEvent,
    PermissionRequest,
    PermissionSelected,
    SanitizedEnvPolicy,
    ToolCallEvent,
)


def allow(req: PermissionRequest) -> PermissionSelected:
    return PermissionSelected(selected=req.options[0].option_id)


client = Client(permission_handler=allow)
env = SanitizedEnvPolicy(inherit=["PATH", "HOME"])
spec = AcpAgentSpec(id="example", command=Command(program=sys.argv[1], args=sys.argv[2:], env=env))
session = client.session_open(spec=spec).session_id
out = client.session_prompt(session_id=session, text="Hello!")
client.session_close(session_id=session)
for event in client.events(session):  # in the order sent; ends after the close
    match event:
        case MessageChunkEvent(text=text):
            print(text, end="")
        case ToolCallEvent(kind=kind, title=title):
            print(f"[{kind}: {title}]")
print(f"\nstop reason: {out.stop_reason}")
sys.exit(client.close())  # EOF: the sidecar closes every session and exits 0
