"""Render speed and size of the pictures: K racks and K tables per game.

    .venv/bin/python bench/render.py [K] [--game kenza|canasta|tunj|konkan_cards|konkan_tiles|all] [--lang ar|en]
        [--no-raqm] [--save DIR] [--profile N]

Kenza views are synthetic (random hands, table sizes, scores, last moves, 2-4 players, some finished matches) so
the figures do not depend on the engine; Canasta, Tunj and both Konkans' views come from seeded bot play (melds,
canastas, red 3s and long hands after a take; growing houses, filling foundations, open claims; runs and sets with
jokers, taken discards, reshuffles; tile melds, jokers and Konkan seats). The views are made before timing
starts; the face caches warm up over the first images, as in a running bot. Prints median and p95 milliseconds per
rack and per table (wall, and this process's CPU time, which a busy shared machine disturbs less), and mean PNG
bytes per image. Goal: <= 15 ms median each. `--save DIR` also writes every PNG as DIR/<game>-<lang>-<n>-<kind>.png,
so two versions of the renderers can be compared picture by picture (bench/picture_diff.py). `--profile N` runs
the pictures once more under cProfile and prints the N functions with the most time of their own (share of the
profiled time, milliseconds per call and per picture), then the shares of encoding, palette mapping and drawing.

After timing, every PNG is decoded in full and must be the size of the picture its game module draws for the same
view (and at least MIN_SIDE pixels each way); otherwise the bench exits with code 1 and one line instead of
printing figures for pictures nobody could see.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import pstats
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
import renderers  # noqa: E402
from bench.bot_match import positions  # noqa: E402
from bench.checks import BrokenRun, refuse  # noqa: E402
from engine.bots import decide  # noqa: E402
from renderers.cards_spanish import CODES  # noqa: E402

NAMES = ["أحمد", "Sarah", "محمد بن عبد الله", "ليلى", "Omar", "فاطمة الزهراء", "Yusuf", "نور"]
# One picture pair to time: (rack view, table view, seat names, selected rack positions).
Case = tuple[dict[str, Any], dict[str, Any], list[str], tuple[int, ...]]


def synthetic_view(rng: random.Random) -> dict[str, Any]:
    players = rng.choice((2, 3, 4))
    teams = players == 4
    deck = list(CODES)
    rng.shuffle(deck)
    table_n = rng.choice((0, 1, 3, 4, 6, 8, 12))
    hand_sizes = [rng.randint(0, 3) for _ in range(players)]
    seat = rng.randrange(players)
    hand_sizes[seat] = rng.randint(1, 3)
    hand = [deck.pop() for _ in range(hand_sizes[seat])]
    table = [deck.pop() for _ in range(table_n)]
    sides = 2 if teams else players
    over = rng.random() < 0.1
    scores = [rng.randint(0, 200) for _ in range(sides)]
    captured = rng.sample(deck, 3)
    last = rng.choice(
        (None, {"seat": 0, "move": f"play {captured[0]}"},
         {"seat": 1, "move": f"play {captured[0]} take {captured[1]} {captured[2]}"})
    )
    return {
        "game": "kenza", "variant": rng.choice(("kenza", "rabaeen")), "target": rng.choice((101, 151, 301)),
        "players": players, "teams": teams, "seat": seat, "dealer": rng.randrange(players),
        "to_move": None if over else rng.randrange(players), "round": rng.randint(1, 9), "hand": hand,
        "hand_sizes": hand_sizes, "table": table, "stock_size": rng.randint(0, 30),
        "captured_counts": [rng.randint(0, 20) for _ in range(players)],
        "sweeps": [rng.randint(0, 3) for _ in range(players)], "scores": scores, "last_move": last,
        "last_capturer": None, "over": over, "winners": [max(range(sides), key=scores.__getitem__)] if over else [],
    }


def kenza_cases(k: int, seed: int = 1) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    for _ in range(k):
        view = synthetic_view(rng)
        names = rng.sample(NAMES, view["players"])
        selected = tuple(i for i in range(len(view["hand"])) if rng.random() < 0.3)
        cases.append((view, dict(view, seat=None, hand=None), names, selected))
    return cases


def sample_views(k: int, seed: int = 1) -> list[tuple[dict[str, Any], dict[str, Any], list[str]]]:
    """(seat view, public view, names) pairs from bot play, every 7th state of alternating duo/classic4 matches."""
    game = engine.get("canasta")
    out: list[tuple[dict[str, Any], dict[str, Any], list[str]]] = []
    setups = ((2, {"variant": "duo"}), (4, {"variant": "classic4"}))
    for at in positions("canasta", random.Random(seed), lambda match: setups[match % 2]):
        if len(out) == k:
            break
        if at.step % 7 == 0:
            out.append((game.view(at.state, at.seat), game.view(at.state, None), NAMES[:at.players]))
    return out


def canasta_cases(k: int) -> list[Case]:
    rng = random.Random(2)
    return [(view, public, names, tuple(i for i in range(len(view["hand"])) if rng.random() < 0.2))
            for view, public, names in sample_views(k)]


def game_views(count: int, seed: int = 1) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(public view, view of the seat to move) pairs, `count` of them, spread over whole bot games."""
    game = engine.get("tunj")
    every: list[tuple[dict[str, Any], dict[str, Any]]] = []
    number = 0
    while len(every) < 4 * count:
        state = game.new(2, {}, seed=seed + number)
        chooser = random.Random(number)
        while not game.result(state)["over"] and len(every) < 4 * (count + 1):
            seat = game.to_move(state)
            level = "random" if seat == number % 2 else "normal"
            state = game.apply(state, seat, decide("tunj", state, seat, level, chooser))
            mover = game.to_move(state)
            every.append((game.view(state, None), game.view(state, mover if mover is not None else 0)))
        number += 1
    return every[:: max(1, len(every) // count)][:count]


def tunj_cases(k: int) -> list[Case]:
    picks = [(), (0,), (3,), (4, 102)]
    return [(own, public, NAMES[:2], picks[index % len(picks)]) for index, (public, own) in enumerate(game_views(k))]


def konkan_cards_cases(k: int, seed: int = 3) -> list[Case]:
    """Every 5th state of seeded 2-4 player Konkan matches (one normal bot, the rest random): the mover's rack
    with a few cards selected, and the public table (melds with jokers, taken cards, reshuffles, final rounds)."""
    game = engine.get("konkan_cards")
    rng = random.Random(seed)
    cases: list[Case] = []
    for at in positions("konkan_cards", rng, lambda match: (2 + match % 3, {}),
                        lambda seat: "normal" if seat == 0 else "random"):
        if len(cases) == k:
            break
        if at.step % 5 == 0:
            own = game.view(at.state, at.seat)
            picks = tuple(i for i in range(len(own["hand"])) if rng.random() < 0.2)
            cases.append((own, game.view(at.state, None), NAMES[:at.players], picks))
    return cases


def konkan_tiles_cases(k: int, seed: int = 1) -> list[Case]:
    """Every 9th state of seeded 2v2 quick matches between normal bots (melds, jokers, locks and Konkan seats as
    they come), alternating plain and auto-arranged racks."""
    game = engine.get("konkan_tiles")
    rng = random.Random(seed)
    out: list[Case] = []
    for at in positions("konkan_tiles", rng, lambda match: (4, {"mode": "quick"}), count_per_match=False):
        if len(out) == k:
            break
        if at.step % 9 == 0:
            own = dict(game.view(at.state, at.seat), arranged=len(out) % 2 == 1)
            picked = tuple(i for i in range(len(own["hand"])) if rng.random() < 0.2)
            out.append((own, game.view(at.state, None), NAMES[:4], picked))
    return out


CASES = {
    "kenza": kenza_cases, "canasta": canasta_cases, "tunj": tunj_cases,
    "konkan_cards": konkan_cards_cases, "konkan_tiles": konkan_tiles_cases,
}
MIN_SIDE = 200  # every real rack and table is larger than this both ways


def picture_problem(png: bytes, expected: tuple[int, int]) -> str | None:
    """Why `png` is not a whole picture of the expected size, or None when it is."""
    try:
        with Image.open(io.BytesIO(png)) as image:
            image.load()
            kind, size = image.format, image.size
    except Exception as error:  # noqa: BLE001 - any decoder failure is the answer
        return f"does not decode ({type(error).__name__}: {error})"
    if kind != "PNG":
        return f"is {kind}, not PNG"
    if size != expected:
        return f"decodes to {size[0]}x{size[1]}, expected {expected[0]}x{expected[1]}"
    if min(size) < MIN_SIDE:
        return f"is only {size[0]}x{size[1]}"
    return None


def check_pictures(game_id: str, cases: list[Case], pictures: list[tuple[bytes, bytes]], lang: str,
                   raqm: bool | None) -> None:
    """Every rack and table of the run decodes to the size its game module draws for that view."""
    module = importlib.import_module(f"renderers.{game_id}")
    if len(pictures) != len(cases):
        raise BrokenRun(f"{game_id}: {len(pictures)} picture pairs for {len(cases)} views")
    for number, ((own, public, names, selected), (rack, table)) in enumerate(zip(cases, pictures, strict=True)):
        context = renderers.RenderContext(lang=lang, names=tuple(names), selected=frozenset(selected), raqm=raqm)
        for kind, png, drawn in (("rack", rack, module.render_rack(own, context)),
                                 ("table", table, module.render_table(public, replace(context, selected=frozenset())))):
            problem = picture_problem(png, drawn.size)
            if problem:
                raise BrokenRun(f"{game_id} {kind} {number}: the PNG {problem}")


def measure(game_id: str, k: int, lang: str, raqm: bool | None, save: Path | None = None) -> None:
    cases = CASES[game_id](k)
    if not cases:
        raise BrokenRun(f"{game_id}: no views to render")
    rack_ms, table_ms, rack_cpu, table_cpu, sizes = [], [], [], [], []
    pictures: list[tuple[bytes, bytes]] = []
    for own, public, names, selected in cases:
        t0, c0 = time.perf_counter(), time.process_time()
        rack = renderers.render_rack(game_id, own, lang, names, selected, raqm=raqm)
        t1, c1 = time.perf_counter(), time.process_time()
        table = renderers.render_table(game_id, public, lang, names, raqm=raqm)
        t2, c2 = time.perf_counter(), time.process_time()
        rack_ms.append((t1 - t0) * 1000)
        table_ms.append((t2 - t1) * 1000)
        rack_cpu.append((c1 - c0) * 1000)
        table_cpu.append((c2 - c1) * 1000)
        sizes += [len(rack), len(table)]
        pictures.append((rack, table))
    check_pictures(game_id, cases, pictures, lang, raqm)
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        for number, (rack, table) in enumerate(pictures):
            (save / f"{game_id}-{lang}-{number:03d}-rack.png").write_bytes(rack)
            (save / f"{game_id}-{lang}-{number:03d}-table.png").write_bytes(table)

    def p95(xs: list[float]) -> float:
        return sorted(xs)[max(0, round(0.95 * len(xs)) - 1)]

    print(f"{game_id} render, K={len(cases)}, lang={lang}, raqm={'auto' if raqm is None else raqm}")
    print(f"  rack : median {statistics.median(rack_ms):6.2f} ms  p95 {p95(rack_ms):6.2f} ms"
          f"  (CPU: median {statistics.median(rack_cpu):6.2f} ms, mean {statistics.mean(rack_cpu):6.2f} ms)")
    print(f"  table: median {statistics.median(table_ms):6.2f} ms  p95 {p95(table_ms):6.2f} ms"
          f"  (CPU: median {statistics.median(table_cpu):6.2f} ms, mean {statistics.mean(table_cpu):6.2f} ms)")
    print(f"  mean PNG bytes per image: {statistics.mean(sizes):,.0f}, largest {max(sizes):,}")


# Profile entries whose cumulative time is one stage of a picture (matched on "file:function").
STAGES = (("drawing (the game module's render_rack)", "", "render_rack"),
          ("drawing (the game module's render_table)", "", "render_table"),
          ("palette mapping", "renderers/palette.py", "apply"),
          ("PNG written by Pillow (zlib)", "PIL/PngImagePlugin.py", "_save"),
          ("PNG written by renderers/png.py (ISA-L)", "renderers/png.py", "fast_palette_png"))


def profile(game_id: str, k: int, lang: str, raqm: bool | None, top: int) -> None:
    """Where a picture's time goes: the game's pictures drawn once more (caches warm, as in a running worker)."""
    cases = CASES[game_id](k)
    profiler = cProfile.Profile()
    profiler.enable()
    for own, public, names, selected in cases:
        renderers.render_rack(game_id, own, lang, names, selected, raqm=raqm)
        renderers.render_table(game_id, public, lang, names, raqm=raqm)
    profiler.disable()
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]  # {(file, line, name): (cc, nc, tottime, cumtime, callers)}
    total = sum(tottime for _, _, tottime, _, _ in entries.values())
    pictures = 2 * len(cases)
    print(f"{game_id} profile ({lang}): {pictures} pictures, {1000 * total / pictures:.2f} ms per picture profiled")
    print(f"  {'own %':>6} {'cum %':>6} {'calls':>7} {'ms/call':>8} {'ms/pic':>7}  function")
    ranked = sorted(entries.items(), key=lambda item: -item[1][2])[:top]
    for (file, line, name), (_, calls, tottime, cumtime, _) in ranked:
        where = name if file == "~" else f"{Path(file).parent.name}/{Path(file).name}:{line}({name})"
        print(f"  {100 * tottime / total:6.1f} {100 * cumtime / total:6.1f} {calls:7d} "
              f"{1000 * tottime / max(calls, 1):8.3f} {1000 * tottime / pictures:7.3f}  {where}")
    game_file = f"renderers/{game_id}.py"
    for label, file_end, function in STAGES:
        cumulative = sum(cumtime for (file, _, name), (_, _, _, cumtime, _) in entries.items()
                         if name == function and file.endswith(file_end or game_file))
        print(f"  {label}: {100 * cumulative / total:.1f}% ({1000 * cumulative / pictures:.2f} ms per picture)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("k", nargs="?", type=int, default=200)
    parser.add_argument("--game", choices=[*CASES, "all"], default="all")
    parser.add_argument("--lang", default="ar")
    parser.add_argument("--no-raqm", action="store_true", help="force the arabic-reshaper + python-bidi path")
    parser.add_argument("--save", type=Path, help="write every PNG into this directory")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="also print the top N of a profile")
    args = parser.parse_args()
    try:
        for game_id in CASES if args.game == "all" else [args.game]:
            raqm = False if args.no_raqm else None
            measure(game_id, args.k, args.lang, raqm, args.save)
            if args.profile:
                profile(game_id, args.k, args.lang, raqm, args.profile)
    except BrokenRun as error:
        raise refuse(error) from None


if __name__ == "__main__":
    main()
