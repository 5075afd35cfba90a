"""The strict decoders and the encoder the generated types are built from.

A decoder is a callable (value, path) -> T that raises DecodeError naming the bad field.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, List, Optional, TypeVar

T = TypeVar("T")
Decoder = Callable[[Any, str], T]


class DecodeError(ValueError):
    """A message (or part of one) does not match the schema; path names where."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class Unset:
    """The type of UNSET: an optional field that may hold JSON null is UNSET when absent."""

    _instance: Optional[Unset] = None

    def __new__(cls) -> Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET = Unset()


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def obj(v: Any, path: str) -> Dict[str, Any]:
    if not isinstance(v, dict):
        raise DecodeError(path, f"expected an object, got {_kind(v)}")
    return v


def tag(d: Dict[str, Any], key: str, path: str) -> str:
    if key not in d:
        raise DecodeError(f"{path}.{key}", "required field is missing")
    return STRING(d[key], f"{path}.{key}")


def const(d: Dict[str, Any], key: str, want: Any, path: str) -> None:
    if key not in d:
        raise DecodeError(f"{path}.{key}", "required field is missing")
    got = d[key]
    if type(got) is not type(want) or got != want:
        raise DecodeError(f"{path}.{key}", f"must be {want!r}, got {got!r}")


def reject_unknown(d: Dict[str, Any], known: FrozenSet[str], path: str) -> None:
    extra = sorted(k for k in d if k not in known)
    if extra:
        raise DecodeError(path, "unknown field(s) " + ", ".join(extra))


def extra(d: Dict[str, Any], known: FrozenSet[str]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if k not in known}


def required(d: Dict[str, Any], key: str, path: str, dec: Decoder[T]) -> T:
    if key not in d:
        raise DecodeError(f"{path}.{key}", "required field is missing")
    return dec(d[key], f"{path}.{key}")


def optional(d: Dict[str, Any], key: str, path: str, dec: Decoder[T], absent: Any) -> Any:
    if key not in d:
        return absent
    return dec(d[key], f"{path}.{key}")


def _string(v: Any, path: str) -> str:
    if not isinstance(v, str):
        raise DecodeError(path, f"expected a string, got {_kind(v)}")
    return v


STRING: Decoder[str] = _string


def string_min(n: int) -> Decoder[str]:
    def dec(v: Any, path: str) -> str:
        s = _string(v, path)
        if len(s) < n:
            raise DecodeError(path, f"must be at least {n} character(s) long")
        return s

    return dec


def _integer(v: Any, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DecodeError(path, f"expected an integer, got {_kind(v)}")
    if isinstance(v, float):
        if not v.is_integer():
            raise DecodeError(path, f"expected an integer, got {v}")
        return int(v)
    return v


INTEGER: Decoder[int] = _integer


def _number(v: Any, path: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DecodeError(path, f"expected a number, got {_kind(v)}")
    return v


NUMBER: Decoder[float] = _number


def _check_range(x: float, lo: Optional[float], hi: Optional[float], path: str) -> None:
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise DecodeError(path, f"{x} is out of range [{lo}, {hi}]")


def integer_range(lo: Optional[int], hi: Optional[int]) -> Decoder[int]:
    def dec(v: Any, path: str) -> int:
        n = _integer(v, path)
        _check_range(n, lo, hi, path)
        return n

    return dec


def number_range(lo: Optional[float], hi: Optional[float]) -> Decoder[float]:
    def dec(v: Any, path: str) -> float:
        n = _number(v, path)
        _check_range(n, lo, hi, path)
        return n

    return dec


def _boolean(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        raise DecodeError(path, f"expected a boolean, got {_kind(v)}")
    return v


BOOLEAN: Decoder[bool] = _boolean


def _any(v: Any, path: str) -> Any:
    return v


ANY: Decoder[Any] = _any


def _any_object(v: Any, path: str) -> Dict[str, Any]:
    return obj(v, path)


ANY_OBJECT: Decoder[Dict[str, Any]] = _any_object


def enum(v: Any, path: str, values: FrozenSet[str]) -> str:
    s = _string(v, path)
    if s not in values:
        raise DecodeError(path, f"{s!r} is not one of {', '.join(sorted(values))}")
    return s


def array_of(item: Decoder[T]) -> Decoder[List[T]]:
    def dec(v: Any, path: str) -> List[T]:
        if not isinstance(v, list):
            raise DecodeError(path, f"expected an array, got {_kind(v)}")
        return [item(x, f"{path}[{i}]") for i, x in enumerate(v)]

    return dec


def map_of(value: Decoder[T]) -> Decoder[Dict[str, T]]:
    def dec(v: Any, path: str) -> Dict[str, T]:
        return {k: value(x, f"{path}[{k!r}]") for k, x in obj(v, path).items()}

    return dec


def nullable(inner: Decoder[T]) -> Decoder[Optional[T]]:
    def dec(v: Any, path: str) -> Optional[T]:
        return None if v is None else inner(v, path)

    return dec


def encode(v: Any) -> Any:
    """The JSON form of a protocol value: objects by their to_json, containers item by item."""
    to_json = getattr(v, "to_json", None)
    if to_json is not None:
        return to_json()
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {k: encode(x) for k, x in v.items()}
    return v
