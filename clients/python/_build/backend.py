"""The a4aa client's own PEP 517 build backend: standard library only, so that
`pip install ./clients/python` works in a fresh venv with no index to fetch setuptools or
wheel from. It builds a pure-Python wheel of src/a4aa (and an sdist of this folder)."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "a4aa"


def _project() -> Dict[str, Any]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib

        return dict(tomllib.loads(text)["project"])
    except ModuleNotFoundError:  # Python 3.10: the few keys this backend reads
        section = text.split("[project]", 1)[1].split("\n[", 1)[0]
        out: Dict[str, Any] = {}
        for key in ("name", "version", "description", "requires-python"):
            m = re.search(rf'^{key}\s*=\s*"([^"]*)"', section, re.M)
            if m:
                out[key] = m.group(1)
        return out


def _metadata() -> str:
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}"]
    if p.get("description"):
        lines.append(f"Summary: {p['description']}")
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    lines.append("License: MIT")
    readme = ROOT / "README.md"
    body = readme.read_text(encoding="utf-8") if readme.exists() else ""
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + body


def _dist_info() -> str:
    p = _project()
    return f"{p['name']}-{p['version']}.dist-info"


def _files() -> List[Tuple[str, bytes]]:
    out = []
    for f in sorted(PACKAGE.rglob("*")):
        if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc":
            out.append((f"a4aa/{f.relative_to(PACKAGE).as_posix()}", f.read_bytes()))
    return out


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    info = Path(metadata_directory) / _dist_info()
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(), encoding="utf-8")
    return info.name


def _wheel(wheel_directory: str, files: List[Tuple[str, bytes]]) -> str:
    p = _project()
    name = f"{p['name']}-{p['version']}-py3-none-any.whl"
    info = _dist_info()
    files = files + [
        (f"{info}/METADATA", _metadata().encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: a4aa-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "\n".join([_record_line(n, d) for n, d in files] + [f"{info}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files + [(f"{info}/RECORD", record.encode())]:
            zi = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, d, zipfile.ZIP_DEFLATED)
    return name


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, _files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    # A .pth file pointing at src/: edits to the sources take effect without reinstalling.
    return _wheel(wheel_directory, [("a4aa_editable.pth", (str(ROOT / "src") + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    p = _project()
    base = f"{p['name']}-{p['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "_build/backend.py"]:
            if (ROOT / rel).exists():
                tar.add(ROOT / rel, arcname=f"{base}/{rel}")
        for f in sorted(PACKAGE.rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts:
                tar.add(f, arcname=f"{base}/src/a4aa/{f.relative_to(PACKAGE).as_posix()}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
