"""The generated error table and constructors say what the schema says; A4aaError keeps the
generated ErrorData it read."""

from __future__ import annotations

import json
from pathlib import Path

from a4aa import A4aaError, ErrorData
from a4aa._generated_errors import ERROR_CODES, RPC_ADAPTER_ERROR, turn_in_progress_error

SCHEMA = Path(__file__).resolve().parents[3] / "schema" / "a4aa.v1.openrpc.json"


def test_error_codes_are_the_schemas() -> None:
    doc = json.loads(SCHEMA.read_text(encoding="utf-8"))
    ec = doc["components"]["schemas"]["ErrorCode"]
    assert sorted(ERROR_CODES) == sorted(ec["enum"])
    for code, want in ec["x-error-codes"].items():
        info = ERROR_CODES[code]
        assert (info.rpc_code, info.message, info.retryable) == (
            doc["components"]["errors"][want["rpcError"]]["code"],
            want["message"],
            want.get("retryable", False),
        ), code


def test_constructor_makes_its_code() -> None:
    e = turn_in_progress_error("prompt", "a turn is running")
    assert (e.rpc_code, e.code, e.stage, e.retryable, e.detail) == (RPC_ADAPTER_ERROR, "turn_in_progress", "prompt", True, "a turn is running")
    assert e.error_data == ErrorData(code="turn_in_progress", stage="prompt", retryable=True, uncertain_effect=False, detail="a turn is running")


def test_from_wire_keeps_the_generated_error_data() -> None:
    data = {"code": "quota_exceeded", "stage": "prompt", "retryable": True, "uncertainEffect": False, "hint": "later"}
    e = A4aaError.from_wire({"code": -32000, "message": "Quota exceeded", "data": data})
    assert (e.code, e.stage, e.retryable) == ("quota_exceeded", "prompt", True)
    assert e.error_data is not None and e.error_data.extra == {"hint": "later"}
    assert A4aaError.from_wire({"code": -32601, "message": "Method not found"}).error_data is None
