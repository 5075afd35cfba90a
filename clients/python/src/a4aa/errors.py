"""The errors a call can raise."""

from __future__ import annotations

from typing import Any, Optional, cast

from ._codec import DecodeError
from ._generated_protocol import ErrorData, ErrorStage


class A4aaError(Exception):
    """A failed call: the sidecar's JSON-RPC error with its a4aa data, or one this client
    made up when the connection ended (code "peer_closed").

    error_data is the error's a4aa data (the generated ErrorData), None when the sidecar
    sent none; code, stage, retryable, uncertain_effect and detail are its fields (code is ""
    without it). uncertain_effect: the agent may have acted before the failure.
    """

    def __init__(
        self,
        rpc_code: int,
        message: str,
        *,
        code: str = "",
        stage: str = "",
        retryable: bool = False,
        uncertain_effect: bool = False,
        detail: Optional[str] = None,
        data: Any = None,
    ) -> None:
        text = message
        if code:
            text += f" ({code}, stage {stage}{', retryable' if retryable else ''}{', uncertain effect' if uncertain_effect else ''})"
        if detail and detail != message:
            text += f": {detail}"
        super().__init__(text)
        self.rpc_code = rpc_code
        self.message = message
        self.code = code
        self.stage = stage
        self.retryable = retryable
        self.uncertain_effect = uncertain_effect
        self.detail = detail
        self.data = data
        self.error_data: Optional[ErrorData] = (
            ErrorData(code=code, stage=cast(ErrorStage, stage), retryable=retryable, uncertain_effect=uncertain_effect, detail=detail) if code else None
        )

    @classmethod
    def from_wire(cls, error: Any) -> A4aaError:
        """Reads a JSON-RPC error object leniently: unknown codes and stages are kept as they are."""
        from ._generated_errors import RPC_INTERNAL_ERROR

        if not isinstance(error, dict):
            return cls(RPC_INTERNAL_ERROR, f"malformed error response: {error!r}")
        data = error.get("data")
        code = error.get("code")
        rpc_code = code if isinstance(code, int) else RPC_INTERNAL_ERROR
        message = str(error.get("message", ""))
        try:
            d = ErrorData.from_json(data)
        except DecodeError:
            return cls(rpc_code, message, data=data)
        e = cls(rpc_code, message, code=d.code, stage=d.stage, retryable=d.retryable, uncertain_effect=d.uncertain_effect, detail=d.detail, data=data)
        e.error_data = d  # as received, with fields this client does not know
        return e

    @classmethod
    def peer_closed(cls, sent: bool, why: str) -> A4aaError:
        """The error of a call the connection ended under; a sent call may have acted."""
        from ._generated_errors import ERROR_CODES

        info = ERROR_CODES["peer_closed"]
        return cls(info.rpc_code, f"the sidecar connection is closed: {why}", code="peer_closed", stage="transport", uncertain_effect=sent)
