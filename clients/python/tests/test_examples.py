"""The shared examples, schema/examples/<TypeName>/{valid,invalid}-*.json: every valid one
decodes and re-encodes to the same JSON; every invalid one is rejected (an open union keeps
an unknown tag as its Unknown value instead, which counts as not understood). invalid-open-*
hold a value that only a later minor version could send to an open enum (x-open): the schema
rejects it, and a client must decode it and keep it unchanged. invalid-pattern-* break only a
`pattern` or `maxLength` (base64, names, URLs): the sidecar's validator rejects them, while a
client's decoder checks structure, not string contents, so they are not judged here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, List

import pytest

from a4aa import DecodeError, UnknownAgentEvent, decode_by_type_name
from a4aa._codec import encode
from conftest import ROOT

EXAMPLES = ROOT / "schema" / "examples"
FILES: List[Path] = sorted(EXAMPLES.glob("*/*.json")) if EXAMPLES.is_dir() else []


def test_examples_exist() -> None:
    if not FILES:
        pytest.skip("schema/examples holds no examples yet")
    assert all(f.name.startswith(("valid-", "invalid-")) for f in FILES)


@pytest.mark.parametrize("path", FILES, ids=[f"{f.parent.name}/{f.name}" for f in FILES])
def test_example(path: Path) -> None:
    data: Any = json.loads(path.read_text())
    type_name = path.parent.name
    if path.name.startswith("invalid-pattern-"):
        return
    if path.name.startswith("invalid-") and not path.name.startswith("invalid-open-"):
        try:
            value = decode_by_type_name(type_name, data)
        except DecodeError:
            return
        assert isinstance(value, UnknownAgentEvent), f"accepted an invalid example as {value!r}"
        return
    value = decode_by_type_name(type_name, data)
    assert encode(value) == data
