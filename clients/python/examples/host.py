"""Drives a catalog agent through `a4aa serve` (found by sidecar_command()): python examples/host.py [AGENT-ID]"""

import os
import sys

from a4aa import (
    AgentSelection,
    Client,
    MessageChunkEvent,
    PermissionRequest,
    PermissionSelected,
    ToolCallEvent,
)


def allow(req: PermissionRequest) -> PermissionSelected:
    return PermissionSelected(selected=req.options[0].option_id)


client = Client(permission_handler=allow)
agent_id = sys.argv[1] if len(sys.argv) > 1 else "example"  # `a4aa agents` lists the ids
keys = {"ANTHROPIC_API_KEY": os.environ.get("ANTHROPIC_API_KEY", "")}
agent = AgentSelection(id=agent_id, credentials=keys if agent_id == "claude-code" else None)
session = client.session_open(agent=agent).session_id
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
