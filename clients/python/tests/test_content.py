"""Prompt content: content= on session_prompt and prompt_stream, blocks made from files, through a
real sidecar to the generic echo CLI (text only: files as text, an image refused)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, List

import pytest

from a4aa import A4aaError, Client, TurnEnd
from a4aa.content import file_link, file_resource, image, image_file
from conftest import CALL_TIMEOUT, ROOT
from test_turns import echo_cli, text_of

Start = Callable[..., Client]


def test_content_reaches_a_text_only_cli_as_text_and_an_image_is_refused(start: Start, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("remember the colour\n")
    png = tmp_path / "dot.png"
    png.write_bytes(bytes.fromhex("89504e470d0a1a0a"))
    assert image_file(png).to_json() == {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    with pytest.raises(ValueError):
        image_file(tmp_path / "x.bmp")

    client = start()
    opened = client.session_open(spec=echo_cli(), cwd=str(ROOT), timeout=CALL_TIMEOUT)
    caps = opened.capabilities.content
    assert (caps.image, caps.resource, caps.resource_link) == (False, True, True)
    uri = notes.resolve().as_uri()
    want = f"[Embedded file {uri} (text/plain)]\nremember the colour\n[End of {uri}]\n\n[Linked file \"notes.txt\": {notes.resolve()}]"
    out = client.session_prompt(session_id=opened.session_id, text="Read:", content=[file_resource(notes, "text/plain"), file_link(notes)], timeout=CALL_TIMEOUT)
    assert out.text is not None and want in out.text

    items: List[Any] = list(client.prompt_stream(session_id=opened.session_id, content=[file_link(notes)], timeout=CALL_TIMEOUT))
    assert isinstance(items[-1], TurnEnd)
    assert f"[Linked file \"notes.txt\": {notes.resolve()}]" in text_of(items[:-1])

    with pytest.raises(A4aaError) as e:
        client.session_prompt(session_id=opened.session_id, content=[image(b"\x01\x02\x03", "image/png")], timeout=CALL_TIMEOUT)
    assert e.value.code == "unsupported_content"
