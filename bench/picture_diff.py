"""Compare two directories of PNGs picture by picture (bench/render.py --save), decoded to RGB pixels.

    .venv/bin/python bench/picture_diff.py BEFORE_DIR AFTER_DIR

A change meant to make drawing or encoding cheaper must not change what players see: this prints, per game and
kind, how many pictures are pixel-identical, and for every one that is not, its size, the box that differs and the
largest channel difference (ImageChops.difference), so the differing ones can be looked at. Exits 1 when a
picture differs or is missing on one side.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from PIL import Image, ImageChops


def pixels(path: Path) -> Image.Image:
    with Image.open(path) as image:
        return image.convert("RGB")


def compare(before: Path, after: Path) -> int:
    names = sorted({p.name for p in before.glob("*.png")} | {p.name for p in after.glob("*.png")})
    same: Counter[str] = Counter()
    total: Counter[str] = Counter()
    problems = 0
    for name in names:
        group = "-".join(name.removesuffix(".png").split("-")[:2]) + "-" + name.removesuffix(".png").split("-")[-1]
        total[group] += 1
        a, b = before / name, after / name
        if not (a.exists() and b.exists()):
            print(f"{name}: only in {'before' if a.exists() else 'after'}")
            problems += 1
            continue
        old, new = pixels(a), pixels(b)
        if old.size != new.size:
            print(f"{name}: size {old.size} -> {new.size}")
            problems += 1
            continue
        diff = ImageChops.difference(old, new)
        box = diff.getbbox()
        if box is None:
            same[group] += 1
            continue
        worst = max(high for _, high in diff.getextrema())
        print(f"{name}: differs in box {box}, largest channel difference {worst}")
        problems += 1
    for group in sorted(total):
        print(f"  {group:28s} identical {same[group]}/{total[group]}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    problems = compare(args.before, args.after)
    print(f"{problems} pictures differ or are missing")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
