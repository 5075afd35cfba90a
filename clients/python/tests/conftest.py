"""Fixtures: the built sidecar of this checkout (or A4AA_SIDECAR) and the bundled example agent."""

from __future__ import annotations

import os
import shutil
import shlex
import sys
from pathlib import Path
from typing import Callable, Iterator, List

import pytest

ROOT = Path(__file__).resolve().parents[3]
try:  # the installed package (pip install ./clients/python), else the source
    import a4aa  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))

from a4aa import AcpAgentSpec, Client, Command, SanitizedEnvPolicy  # noqa: E402

CALL_TIMEOUT = 60.0


def dist_dir() -> Path:
    return Path(os.environ.get("A4AA_DIST") or ROOT / "dist")


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("node is not on PATH")
    return path


def sidecar_command() -> List[str]:
    if os.environ.get("A4AA_SIDECAR"):
        return shlex.split(os.environ["A4AA_SIDECAR"])
    main = dist_dir() / "src" / "cli" / "main.js"
    if not main.exists():
        pytest.fail(f"{main} is missing: run npm run build first")
    return [node(), str(main), "serve"]


def example_spec() -> AcpAgentSpec:
    agent = dist_dir() / "src" / "examples" / "example-agent.js"
    if not agent.exists():
        pytest.fail(f"{agent} is missing: run npm run build first")
    return AcpAgentSpec(
        id="example",
        command=Command(program=node(), args=[str(agent)], env=SanitizedEnvPolicy(inherit=["PATH", "HOME"])),
    )


def pytest_report_header() -> str:
    import a4aa

    return f"a4aa client from {Path(a4aa.__file__).parent}"


@pytest.fixture
def start() -> Iterator[Callable[..., Client]]:
    """Starts clients; each is closed (or killed) when the test ends."""
    clients: List[Client] = []

    def make(**kwargs: object) -> Client:
        kwargs.setdefault("close_timeout", 20.0)
        c = Client(sidecar_command(), **kwargs)  # type: ignore[arg-type]
        clients.append(c)
        return c

    yield make
    for c in clients:
        try:
            c.close(timeout=20)
        finally:
            if c.returncode is None:
                c._proc.kill()
