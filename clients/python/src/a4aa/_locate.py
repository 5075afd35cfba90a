"""Finding the sidecar to spawn when the host names none. Never npx, never a registry."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import List, Mapping, Optional

FIX = (
    "Fix: set A4AA_SERVE to the command that starts it "
    '(e.g. A4AA_SERVE="node /path/to/a4aa/dist/src/cli/main.js serve") or pass command=[...]; '
    "or install the package beside this host: in a clone of a4aa run npm pack, then in this "
    "host's folder npm install /path/to/a4aa-<version>.tgz (node_modules/.bin/a4aa; npm install "
    "a4aa once it is published). No registry is ever asked (npx is not used)."
)


class SidecarNotFound(RuntimeError):
    """No sidecar command was given and none could be found; `searched` lists where it looked."""

    def __init__(self, searched: List[str]) -> None:
        self.searched = searched
        super().__init__("a4aa: cannot find the sidecar to start; looked for:\n  " + "\n  ".join(searched) + "\n" + FIX)


def sidecar_command(env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None) -> List[str]:
    """The command that starts `a4aa serve`, in this order: $A4AA_SERVE (split on
    whitespace), node_modules/.bin/a4aa in `cwd` or a parent, then `a4aa` on PATH."""
    environ = os.environ if env is None else env
    explicit = environ.get("A4AA_SERVE", "").split()
    if explicit:
        return explicit
    searched = ["$A4AA_SERVE (unset)"]
    here = Path(cwd or os.getcwd()).resolve()
    for folder in [here, *here.parents]:
        candidate = folder / "node_modules" / ".bin" / "a4aa"
        if os.access(candidate, os.X_OK):
            return [str(candidate), "serve"]
        searched.append(str(candidate))
    path = environ.get("PATH")
    on_path = shutil.which("a4aa", path=path)
    if on_path:
        return [on_path, "serve"]
    searched.append(f"a4aa on PATH ({len((path or '').split(os.pathsep)) if path else 0} folders)")
    raise SidecarNotFound(searched)
