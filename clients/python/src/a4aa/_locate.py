"""Finding the sidecar to spawn when the host names none."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import List, Mapping, Optional

NOT_FOUND = (
    "a4aa: cannot find the sidecar to start. Either set A4AA_SERVE to the command that "
    'starts it (e.g. A4AA_SERVE="node /path/to/a4aa/dist/src/cli/main.js serve") or pass '
    "command=[...]; or install the npm package beside this host (npm install a4aa, giving "
    "node_modules/.bin/a4aa in this folder or a parent); or put npx on PATH with a4aa "
    "installed where it finds it (npx --no-install a4aa serve)."
)


class SidecarNotFound(RuntimeError):
    """No sidecar command was given and none could be found."""


def sidecar_command(env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None) -> List[str]:
    """The command that starts `a4aa serve`, in this order: $A4AA_SERVE (split on
    whitespace), node_modules/.bin/a4aa in `cwd` or a parent, `a4aa` on PATH, then
    `npx --no-install a4aa serve`."""
    environ = os.environ if env is None else env
    explicit = environ.get("A4AA_SERVE", "").split()
    if explicit:
        return explicit
    here = Path(cwd or os.getcwd()).resolve()
    for folder in [here, *here.parents]:
        candidate = folder / "node_modules" / ".bin" / "a4aa"
        if os.access(candidate, os.X_OK):
            return [str(candidate), "serve"]
    path = environ.get("PATH")
    on_path = shutil.which("a4aa", path=path)
    if on_path:
        return [on_path, "serve"]
    npx = shutil.which("npx", path=path)
    if npx:
        return [npx, "--no-install", "a4aa", "serve"]
    raise SidecarNotFound(NOT_FOUND)
