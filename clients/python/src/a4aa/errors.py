"""The errors a call can raise."""

from __future__ import annotations

from typing import Any, Optional


class A4aaError(Exception):
    """A failed call: the sidecar's JSON-RPC error with its a4aa data, or one this client
    made up when the connection ended (code "peer_closed").

    code, stage, retryable, uncertain_effect and detail are the error's data; code is ""
    when the sidecar sent no a4aa data. uncertain_effect: the agent may have acted before
    the failure.
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

    @classmethod
    def from_wire(cls, error: Any) -> A4aaError:
        """Reads a JSON-RPC error object leniently: unknown codes and stages are kept as they are."""
        if not isinstance(error, dict):
            return cls(-32603, f"malformed error response: {error!r}")
        data = error.get("data")
        d = data if isinstance(data, dict) else {}
        detail = d.get("detail")
        return cls(
            int(error.get("code", -32603)) if isinstance(error.get("code"), int) else -32603,
            str(error.get("message", "")),
            code=str(d.get("code", "")),
            stage=str(d.get("stage", "")),
            retryable=d.get("retryable") is True,
            uncertain_effect=d.get("uncertainEffect") is True,
            detail=detail if isinstance(detail, str) else None,
            data=data,
        )

    @classmethod
    def peer_closed(cls, sent: bool, why: str) -> A4aaError:
        """The error of a call the connection ended under; a sent call may have acted."""
        return cls(
            -32000,
            f"the sidecar connection is closed: {why}",
            code="peer_closed",
            stage="transport",
            uncertain_effect=sent,
        )
