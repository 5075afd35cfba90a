"""The sidecar is found without PATH tricks: A4AA_SERVE, the package beside the host, PATH;
never npx (it would ask a registry); an error naming every place searched when nothing is found."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from a4aa import Client, SidecarNotFound, sidecar_command
from conftest import dist_dir, node


def _exe(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a4aa_serve_variable_wins(tmp_path: Path) -> None:
    _exe(tmp_path / "node_modules" / ".bin" / "a4aa", "#!/bin/sh\n")
    env = {"A4AA_SERVE": "node /x/main.js serve --log-level warn", "PATH": ""}
    assert sidecar_command(env, str(tmp_path)) == ["node", "/x/main.js", "serve", "--log-level", "warn"]


def test_package_beside_the_host_in_a_parent_folder(tmp_path: Path) -> None:
    bin_ = _exe(tmp_path / "node_modules" / ".bin" / "a4aa", "#!/bin/sh\n")
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    assert sidecar_command({"PATH": ""}, str(deep)) == [str(bin_), "serve"]


def test_path_and_never_npx(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    _exe(tools / "npx", "#!/bin/sh\n")
    with pytest.raises(SidecarNotFound):
        sidecar_command({"PATH": str(tools)}, str(tmp_path))
    a4aa = _exe(tools / "a4aa", "#!/bin/sh\n")
    assert sidecar_command({"PATH": str(tools)}, str(tmp_path)) == [str(a4aa), "serve"]


def test_nothing_found_names_every_place_searched(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    with pytest.raises(SidecarNotFound) as err:
        sidecar_command({"PATH": str(tmp_path)}, str(deep))
    msg = str(err.value)
    assert "A4AA_SERVE" in msg and "npm pack" in msg and "a4aa on PATH" in msg
    for folder in (deep, deep.parent, tmp_path):
        assert str(folder / "node_modules" / ".bin" / "a4aa") in msg
    assert err.value.searched[0] == "$A4AA_SERVE (unset)"


def test_client_starts_the_sidecar_from_a4aa_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A4AA_SERVE", f"{node()} {dist_dir() / 'src' / 'cli' / 'main.js'} serve")
    with Client() as client:
        assert client.ping().protocol == "a4aa.v1"
