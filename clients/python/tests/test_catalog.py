"""The agents catalog (1.2): agents/list, and session/open by agent id as naturally as by spec."""

from __future__ import annotations

from typing import Callable

import pytest

from a4aa import A4aaError, AcpAgentSpec, AgentSelection, Client
from conftest import CALL_TIMEOUT


def test_agents_list_and_open_by_agent(start: Callable[..., Client]) -> None:
    client = start()
    agents = client.agents_list(timeout=CALL_TIMEOUT).agents
    example = next(a for a in agents if a.id == "example")
    assert example.installed and example.source == "builtin"
    opened = client.session_open(agent=AgentSelection(id="example"), timeout=CALL_TIMEOUT)
    assert isinstance(opened.spec, AcpAgentSpec) and opened.spec.id == "example"
    client.session_close(session_id=opened.session_id, timeout=CALL_TIMEOUT)


def test_unknown_agent(start: Callable[..., Client]) -> None:
    client = start()
    with pytest.raises(A4aaError) as e:
        client.session_open(agent=AgentSelection(id="no-such-agent"), timeout=CALL_TIMEOUT)
    assert (e.value.code, e.value.stage) == ("unknown_agent", "open")
