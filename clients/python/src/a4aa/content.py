"""Prompt content (protocol 1.2): content blocks from image bytes and files, for
`session_prompt(..., content=[...])` and `prompt_stream(..., content=[...])`:

    from a4aa.content import image_file
    client.session_prompt(session_id=sid, text="What is in the picture?", content=[image_file("shot.png")])
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Dict, Optional, Union

from ._generated_protocol import ImageContent, ImageContentMimeType, ResourceContent, ResourceLinkContent

PathLike = Union[str, "os.PathLike[str]"]

_IMAGE_TYPES: Dict[str, ImageContentMimeType] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


def image(data: bytes, mime_type: ImageContentMimeType) -> ImageContent:
    """An image block of these bytes."""
    return ImageContent(mime_type=mime_type, data=base64.b64encode(data).decode("ascii"))


def image_file(path: PathLike) -> ImageContent:
    """An image file as a block; the mime type comes from the extension (.png, .jpg, .jpeg, .gif, .webp)."""
    p = Path(path)
    mime = _IMAGE_TYPES.get(p.suffix.lower())
    if mime is None:
        raise ValueError(f"{p}: not a png, jpeg, gif or webp image (by its extension)")
    return image(p.read_bytes(), mime)


def file_resource(path: PathLike, mime_type: Optional[str] = None) -> ResourceContent:
    """A text file's contents, embedded and named by its file:// uri."""
    p = Path(path).resolve()
    return ResourceContent(uri=p.as_uri(), text=p.read_text(encoding="utf-8"), mime_type=mime_type)


def file_link(path: PathLike) -> ResourceLinkContent:
    """A link to a file the agent can read itself (its name: the file's base name)."""
    p = Path(path).resolve()
    return ResourceLinkContent(uri=p.as_uri(), name=p.name)
