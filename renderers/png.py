"""A palette picture written as PNG with a fast deflate (ISA-L), falling back to Pillow's writer.

After the fixed palettes (renderers/palette.py) and zlib level 3, deflating the pixels was still the largest part
of a picture's time in a render worker: Pillow's writer uses zlib, about 2.4 ms for a Tunj board's 520,000 palette
indices. ISA-L's deflate (the `isal` package) does the same job in about 0.4 ms for files about 7% larger than zlib
level 3 gives (29.4 against 27.4 KB for a Tunj table, bench figures in the commit that added this). The PNG is
the plainest valid one: IHDR, PLTE, one IDAT of filter-0 rows, IEND, so it decodes to exactly the indices and
palette Pillow would have written. Pictures with transparency or not in "P" mode, or a process without `isal`,
take Pillow's writer.
"""

from __future__ import annotations

import struct
import zlib
from types import ModuleType

from PIL import Image

isal_zlib: ModuleType | None
try:
    from isal import isal_zlib
except ImportError:  # pragma: no cover - the dependency is declared; Pillow's writer still works without it
    isal_zlib = None

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1  # ISA-L levels 0-3; 1 and 2 were equally fast and within 0.2% in size on the bench's pictures


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def fast_palette_png(image: Image.Image) -> bytes | None:
    """The "P" picture as PNG bytes, or None when this writer does not apply (see the module docstring)."""
    if isal_zlib is None or image.mode != "P" or "transparency" in image.info:
        return None
    palette = image.getpalette("RGB")
    if not palette:
        return None
    width, height = image.size
    # Each PNG row starts with its filter type; 0 (none) is the index-0 column of a picture one pixel wider.
    rows = Image.new("P", (width + 1, height), 0)
    rows.paste(image, (1, 0))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit indices, colour type 3 (palette)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", bytes(palette[:768])),
                     _chunk(b"IDAT", isal_zlib.compress(rows.tobytes(), LEVEL)), _chunk(b"IEND", b"")))
