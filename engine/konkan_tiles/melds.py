"""What a meld is, and the searches built on it: reading typed tiles as a set or a run, extending and stealing
on the table, every meld a hand can lay, the best opening, and whether a whole hand forms melds.

A meld is read by trying every interpretation: the set of the naturals' number, and every run window of the
naturals' colour. Real jokers fill whatever positions the naturals leave, so the reading is unique exactly when
only one interpretation fits; otherwise the player must say what each joker stands for (`R8:K9`). Run positions
go 1-14, where 14 is a 1 played high (12-13-1); a window never passes 14, so 13-1-2 cannot wrap.
A real joker is wild wherever it lies, its own position included (the false joker is the plain tile there).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations

from engine.errors import IllegalMove
from engine.konkan_tiles.tiles import COLORS, HIGH_ACE, bare, code_of, natural, number_value, tile_key

# Searches are cached by a call (`f = lru_cache(...)(_f_uncached)`) rather than a decorator: mutmut leaves decorated
# functions unmutated, and these searches are the rules' core (scripts/mutate.py, docs/testing.md).

SET_LENGTHS = (3, 4)
RUN_LENGTHS = (3, 4, 5)
KONKAN_RUN = 10

Entry = tuple[str, str | None]  # (tile, the position a joker stands for, e.g. "K9", or None)


@dataclass(frozen=True)
class Shape:
    """One reading of a meld. Run cells are in position order and a joker carries its position (`R8:K9`);
    a set's jokers stand for "a missing colour" and carry nothing."""

    kind: str  # "run" | "set"
    color: str | None
    number: int | None
    low: int
    high: int
    cells: tuple[str, ...]

    @cached_property
    def value(self) -> int:
        """Opening value: a joker counts the position it fills. (Kept once worked out: the searches ask each
        meld of a hand again and again; the fields it depends on are frozen.)"""
        if self.kind == "set":
            return number_value(self.number or 0) * len(self.cells)
        return sum(number_value(position) for position in range(self.low, self.high + 1))

    @property
    def tiles(self) -> list[str]:
        return [bare(cell) for cell in self.cells]

    def as_table(self, seat: int) -> dict:
        return {
            "seat": seat,
            "kind": self.kind,
            "color": self.color,
            "number": self.number,
            "low": self.low,
            "high": self.high,
            "cards": list(self.cells),
            "locked": [False, False],
        }


def position_code(color: str, position: int) -> str:
    return f"{color}{1 if position == HIGH_ACE else position}"


def _positions(number: int, low: int, high: int) -> list[int]:
    options = [number] + ([HIGH_ACE] if number == 1 else [])
    return [p for p in options if low <= p <= high]


def read(entries: Sequence[Entry], joker: str | None, *, konkan: bool = False) -> list[Shape]:
    """Every interpretation of `entries` as one meld (ordinary lengths, or the 10-tile Konkan run). Kept per
    entries once read: listing moves, checking each listed move and the bots' scoring read the same melds again
    and again."""
    return list(_read(tuple(entries), joker, konkan))


def _read_uncached(entries: tuple[Entry, ...], joker: str | None, konkan: bool) -> tuple[Shape, ...]:
    size = len(entries)
    naturals: list[tuple[str, str, int]] = []
    stands: list[str | None] = []
    for tile, stand in entries:
        found = natural(tile, joker)
        if found is None:
            stands.append(stand)
        else:
            naturals.append((tile, *found))
    wilds = len(stands)
    if not naturals or (size == 3 and wilds >= 2):
        return ()
    shapes: list[Shape] = []
    colors = [color for _, color, _ in naturals]
    numbers = {number for _, _, number in naturals}
    if not konkan and size in SET_LENGTHS and len(numbers) == 1 and len(set(colors)) == len(colors):
        number = naturals[0][2]
        missing = {f"{color}{number}" for color in COLORS if color not in colors}
        given = [stand for stand in stands if stand is not None]
        if all(stand in missing for stand in given) and len(set(given)) == len(given):
            ordered = sorted(naturals, key=lambda item: COLORS.index(item[1]))
            cells = tuple(tile for tile, _, _ in ordered) + tuple(joker for _ in range(wilds))  # type: ignore[misc]
            shapes.append(Shape("set", None, number, 0, 0, cells))
    lengths = (KONKAN_RUN,) if konkan else RUN_LENGTHS
    if size in lengths and len(set(colors)) == 1:
        color = colors[0]
        for low in range(1, HIGH_ACE - size + 2):
            shape = _run_window(naturals, stands, joker, color, low, low + size - 1)
            if shape is not None:
                shapes.append(shape)
    return tuple(shapes)


_read = lru_cache(maxsize=16384)(_read_uncached)


def _run_window(naturals: list[tuple[str, str, int]], stands: list[str | None], joker: str | None, color: str,
                low: int, high: int) -> Shape | None:
    placed: dict[int, str] = {}
    for tile, _, number in naturals:
        options = _positions(number, low, high)
        if not options or options[0] in placed:
            return None
        placed[options[0]] = tile
    free = [p for p in range(low, high + 1) if p not in placed]
    wild_at: dict[int, str] = {}
    loose = 0
    for stand in stands:
        if stand is None:
            loose += 1
            continue
        if stand[0] != color:
            return None
        spots = [p for p in _positions(int(stand[1:]), low, high) if p in free and p not in wild_at]
        if not spots:
            return None
        wild_at[spots[0]] = stand
    for p in free:
        if p not in wild_at:
            wild_at[p] = position_code(color, p)
            loose -= 1
    if loose != 0:
        return None
    cells = tuple(placed[p] if p in placed else f"{joker}:{wild_at[p]}" for p in range(low, high + 1))
    return Shape("run", color, None, low, high, cells)


def _why_not(entries: Sequence[Entry], joker: str | None, konkan: bool) -> IllegalMove:
    """Why `entries` read as no meld: the refusal, for the caller to raise."""
    size = len(entries)
    found = [natural(tile, joker) for tile, _ in entries]
    naturals = [item for item in found if item is not None]
    wilds = size - len(naturals)
    if konkan:
        if size != KONKAN_RUN:
            return IllegalMove("the Konkan run has exactly 10 tiles", "konkan_tiles.konkan_run_size")
    elif size < 3:
        return IllegalMove("a meld needs at least 3 tiles", "konkan_tiles.three_tiles")
    elif size > 5:
        return IllegalMove("a meld holds at most 5 tiles (only the Konkan run has 10)", "konkan_tiles.five_tiles")
    if size == 3 and wilds >= 2:
        return IllegalMove("two jokers in a 3-tile meld are ambiguous", "konkan_tiles.two_jokers")
    if not naturals:
        return IllegalMove("a meld needs real tiles", "konkan_tiles.real_tiles")
    colors = [color for color, _ in naturals]
    numbers = [number for _, number in naturals]
    if len(set(numbers)) == 1 and not konkan:
        if len(set(colors)) < len(colors):
            return IllegalMove("a set may not hold a colour twice", "konkan_tiles.set_colour_twice")
        if size > 4:
            return IllegalMove("a set holds 3 or 4 tiles", "konkan_tiles.set_size")
        return IllegalMove("the jokers do not fit that set", "konkan_tiles.set_jokers")
    if len(set(colors)) > 1:
        return IllegalMove("a run is one colour and a set one number: these tiles are neither",
                           "konkan_tiles.not_a_meld")
    return IllegalMove("those tiles are not consecutive (a 1 goes low or high, 13-1-2 does not wrap)",
                       "konkan_tiles.not_consecutive")


def check(entries: Sequence[Entry], joker: str | None, *, konkan: bool = False) -> Shape:
    """The one reading of a typed meld, or IllegalMove saying why there is none or asking for the `:` form."""
    shapes = read(entries, joker, konkan=konkan)
    if not shapes:
        raise _why_not(entries, joker, konkan)
    if len(shapes) > 1:
        example = f"{joker}:{_example(shapes)}"
        raise IllegalMove(f"ambiguous meld: say what the joker stands for, e.g. {example}",
                          "konkan_tiles.meld_ambiguous", example=example)
    return shapes[0]


def _example(shapes: list[Shape]) -> str:
    for cell in shapes[0].cells:
        if ":" in cell:
            return cell.split(":", 1)[1]
    return "R5"


def printed(shape: Shape, joker: str | None, *, konkan: bool = False) -> list[str]:
    """The cells as a move prints them: a joker's `:` position only where the meld would be ambiguous without."""
    if shape.kind == "set" or not any(":" in cell for cell in shape.cells):
        return list(shape.cells)
    plain = [(bare(cell), None) for cell in shape.cells]
    if len(read(plain, joker, konkan=konkan)) == 1:
        return [bare(cell) for cell in shape.cells]
    return list(shape.cells)


def table_entries(meld: dict) -> list[Entry]:
    """A table meld's cells as entries with every run joker pinned to its position."""
    out: list[Entry] = []
    for cell in meld["cards"]:
        tile, _, stand = cell.partition(":")
        out.append((tile, stand or None))
    return out


def extend(meld: dict, added: Sequence[Entry], joker: str | None, *, side: str | None = None) -> list[Shape]:
    """Readings of a table meld with `added` tiles laid off: the old tiles keep their places, locked ends stay
    shut, and the meld stays within the ordinary lengths. `side` ("left"/"right") asks for exactly one tile
    at that end (a lock)."""
    combined = table_entries(meld) + list(added)
    out = []
    for shape in read(combined, joker):
        if shape.kind != meld["kind"]:
            continue
        if shape.kind == "set":
            if shape.number == meld["number"] and side is None:
                out.append(shape)
            continue
        if shape.color != meld["color"] or shape.low > meld["low"] or shape.high < meld["high"]:
            continue
        left_locked, right_locked = meld["locked"]
        if (left_locked and shape.low != meld["low"]) or (right_locked and shape.high != meld["high"]):
            continue
        if side == "left" and not (shape.low == meld["low"] - 1 and shape.high == meld["high"]):
            continue
        if side == "right" and not (shape.high == meld["high"] + 1 and shape.low == meld["low"]):
            continue
        out.append(shape)
    return out


def swap(meld: dict, given: Sequence[str], joker: str | None) -> list[str]:
    """The meld's cells after `given` real tiles replace as many of its jokers; IllegalMove when they cannot."""
    cells = list(meld["cards"])
    wild_slots = [i for i, cell in enumerate(cells) if natural(bare(cell), joker) is None]
    if not wild_slots:
        raise IllegalMove("that meld holds no joker", "konkan_tiles.swap_no_joker")
    if not given or len(given) > len(wild_slots):
        raise IllegalMove(f"give one real tile per joker you take (that meld has {len(wild_slots)})",
                          "konkan_tiles.swap_per_joker", n=len(wild_slots))
    if meld["kind"] == "set":
        present = [natural(bare(cell), joker) for cell in cells]
        colors = {item[0] for item in present if item is not None}
        if len(cells) == 4 and len(colors) == 3:
            raise IllegalMove("a dead joker: a set of three real tiles and a joker cannot be robbed",
                              "konkan_tiles.dead_joker")
        used: set[str] = set()
        for tile in given:
            found = natural(tile, joker)
            if found is None:
                raise IllegalMove("give a real tile, not a joker", "konkan_tiles.swap_real_tile")
            color, number = found
            if number != meld["number"] or color in colors or color in used:
                raise IllegalMove(f"{tile} is not a missing colour of that set", "konkan_tiles.swap_not_missing",
                                  tile=tile)
            used.add(color)
            cells[wild_slots.pop(0)] = tile
        wilds = [cell for cell in cells if natural(bare(cell), joker) is None]
        reals = sorted((cell for cell in cells if natural(bare(cell), joker) is not None),
                       key=lambda tile: COLORS.index(natural(tile, joker)[0]))  # type: ignore[index]
        return reals + wilds
    for tile in given:
        found = natural(tile, joker)
        if found is None:
            raise IllegalMove("give a real tile, not a joker", "konkan_tiles.swap_real_tile")
        color, number = found
        spot = None
        for i in wild_slots:
            stand = cells[i].split(":", 1)[1]
            if color == meld["color"] and stand == f"{color}{number}":
                spot = i
                break
        if spot is None:
            raise IllegalMove(f"no joker in that meld stands for {tile}", "konkan_tiles.swap_no_stand", tile=tile)
        wild_slots.remove(spot)
        cells[spot] = tile
    return cells


# ---- what a hand can lay ------------------------------------------------------------------------------------
def _use(shape: Shape) -> Counter:
    return Counter(shape.tiles)


def _hand_melds_uncached(hand: tuple[str, ...], joker: str | None, konkan: bool = False) -> tuple[Shape, ...]:
    """Every distinct meld the tiles of `hand` can form (ordinary, or Konkan runs), jokers in every spot."""
    have = Counter(hand)
    wilds = have.get(joker, 0) if joker else 0
    available = {natural(tile, joker): tile for tile in have if natural(tile, joker) is not None}
    found: dict[tuple[str, ...], Shape] = {}
    if not konkan:
        for number in range(1, 14):
            colors = [c for c in COLORS if (c, number) in available]
            for size in range(1, len(colors) + 1):
                for chosen in combinations(colors, size):
                    for extra in range(0, min(wilds, 2) + 1):
                        total = size + extra
                        if total not in SET_LENGTHS or (total == 3 and extra >= 2):
                            continue
                        entries = [(available[(c, number)], None) for c in chosen] + [(joker, None)] * extra
                        for shape in read(entries, joker):
                            if shape.kind == "set":
                                found.setdefault(shape.cells, shape)
    lengths = (KONKAN_RUN,) if konkan else RUN_LENGTHS
    for color in COLORS:
        # held[p]: tiles of this colour held at run positions 1..p, so a window missing more tiles than the
        # jokers can fill is passed over without listing its spots (most windows of a hand are).
        held = [0] * (HIGH_ACE + 1)
        for p in range(1, HIGH_ACE + 1):
            held[p] = held[p - 1] + ((color, 1 if p == HIGH_ACE else p) in available)
        for size in lengths:
            limit = min(wilds, 1 if size == 3 else 2)
            for low in range(1, HIGH_ACE - size + 2):
                if size - (held[low + size - 1] - held[low - 1]) > limit:
                    continue
                spots = range(low, low + size)
                missing = [p for p in spots if (color, 1 if p == HIGH_ACE else p) not in available]
                present = [p for p in spots if p not in missing]
                for extra in range(0, limit - len(missing) + 1):
                    for swapped in combinations(present, extra):
                        wild_spots = set(missing) | set(swapped)
                        if len(wild_spots) == size:
                            continue
                        cells = tuple(
                            f"{joker}:{position_code(color, p)}" if p in wild_spots
                            else available[(color, 1 if p == HIGH_ACE else p)]
                            for p in spots
                        )
                        found.setdefault(cells, Shape("run", color, None, low, low + size - 1, cells))
    return tuple(found.values())


hand_melds = lru_cache(maxsize=4096)(_hand_melds_uncached)


def _key(counts: Counter) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((tile, n) for tile, n in counts.items() if n > 0))


def _fits(use: Counter, have: Counter) -> bool:
    return all(have.get(tile, 0) >= n for tile, n in use.items())


def _best_opening_uncached(hand: tuple[str, ...], joker: str | None, must: str | None = None,
                 keep: int = 1) -> tuple[int, tuple[Shape, ...]]:
    """The highest-valued set of disjoint melds in `hand` leaving at least `keep` tiles (one for the discard);
    with `must`, one meld holds that tile. (0, ()) when nothing can be laid."""
    found = _opening_search(tuple(sorted(hand, key=tile_key)), joker, must)
    if found is None or not found[1]:
        return 0, ()
    if found[2] <= len(hand) - keep:
        return found[0], found[1]
    best_value, best_shapes = 0, ()
    for tile in sorted(set(hand), key=tile_key):
        if tile == must:
            continue
        rest = list(hand)
        rest.remove(tile)
        value, melds = best_opening(tuple(rest), joker, must, keep - 1 if keep > 1 else 0)
        if value > best_value:
            best_value, best_shapes = value, melds
    return best_value, best_shapes


best_opening = lru_cache(maxsize=4096)(_best_opening_uncached)


def _opening_search_uncached(hand: tuple[str, ...], joker: str | None,
                    must: str | None) -> tuple[int, tuple[Shape, ...], int] | None:
    """The best disjoint melds of a sorted `hand` (value, melds, cells they use), whatever is left over: the
    search behind `best_opening`, shared by every `keep` (the searched counts do not depend on it).

    Tiles are tried in print order: the first natural left is either left loose or laid in one of its melds,
    the melds in `hand_melds` order, the first best option kept. The counts of the tiles any meld uses are packed
    into one integer, a field of bits per tile (natural tiles in print order, then the joker), so a step's checks
    and subtractions are integer operations and its memo key is that integer. The top (guard) bit of each field
    tells whether a meld fits: subtracting its counts from the counts with every guard set clears a guard exactly
    where a count would go below zero (a field holds the largest count with a bit to spare, so nothing borrows
    from the next field)."""
    shapes = hand_melds(hand, joker)
    by_tile: dict[str, list[tuple[Shape, Counter]]] = {}
    for shape in shapes:
        use = _use(shape)
        for tile in use:
            by_tile.setdefault(tile, []).append((shape, use))
    order = [tile for tile in sorted(set(hand), key=tile_key) if tile in by_tile and natural(tile, joker) is not None]
    slots = order + ([joker] if joker is not None and joker in by_tile else [])  # type: ignore[list-item]
    index = {tile: i for i, tile in enumerate(slots)}
    counts = Counter(tile for tile in hand if tile in index)
    field = max(counts.values(), default=1).bit_length() + 1  # bits per count: the guard above the largest
    guard = sum(1 << (field * i + field - 1) for i in range(len(slots)))
    naturals = (1 << (field * len(order))) - 1  # the fields of the natural tiles
    packed = {id(shape): (shape, sum(n << (field * index[tile]) for tile, n in use.items()), shape.value,
                          len(shape.cells)) for shape, use in (item for items in by_tile.values() for item in items)}
    options = [[packed[id(shape)] for shape, _ in by_tile[tile]] for tile in slots]
    start = sum(n << (field * index[tile]) for tile, n in counts.items())
    memo: dict[tuple[int, int | None], tuple[int, tuple[Shape, ...], int] | None] = {}

    def walk(have: int, need: int | None) -> tuple[int, tuple[Shape, ...], int] | None:
        key = (have, need)
        if key in memo:
            return memo[key]
        if need is not None:
            pick = need
        else:
            left = have & naturals
            if not left:
                memo[key] = (0, (), 0)
                return memo[key]
            pick = ((left & -left).bit_length() - 1) // field
        best: tuple[int, tuple[Shape, ...], int] | None = None
        if need is None:
            best = walk(have - (1 << (field * pick)), None)
        guarded = have | guard
        for shape, use, value, cells in options[pick]:
            after_use = guarded - use
            if after_use & guard != guard:
                continue  # the meld needs a tile `have` lacks
            after = walk(after_use & ~guard, None)
            if after is None:
                continue
            option = (after[0] + value, (shape, *after[1]), after[2] + cells)
            if best is None or option[0] > best[0]:
                best = option
        memo[key] = best
        return best

    if must is not None and must not in index:
        return None  # no meld holds that tile
    return walk(start, None if must is None else index[must])


_opening_search = lru_cache(maxsize=4096)(_opening_search_uncached)


def _partition_uncached(hand: tuple[str, ...], joker: str | None) -> tuple[Shape, ...] | None:
    """Melds using every tile of `hand` exactly once (the hidden finish), or None."""
    if not hand:
        return ()
    shapes = hand_melds(tuple(sorted(hand, key=tile_key)), joker)
    return _partition(Counter(hand), [(shape, _use(shape)) for shape in shapes], joker)


partition = lru_cache(maxsize=4096)(_partition_uncached)


def _partition(counts: Counter, uses: list[tuple[Shape, Counter]], joker: str | None) -> tuple[Shape, ...] | None:
    uses = [(shape, use) for shape, use in uses if _fits(use, counts)]
    covered = {tile for _, use in uses for tile in use}
    if any(tile not in covered for tile in counts if counts[tile]):
        return None
    memo: dict[tuple, tuple[Shape, ...] | None] = {}

    def walk(have: Counter) -> tuple[Shape, ...] | None:
        if not +have:
            return ()
        key = _key(have)
        if key in memo:
            return memo[key]
        naturals = [tile for tile in sorted(have, key=tile_key) if have[tile] and natural(tile, joker) is not None]
        result = None
        if naturals:
            pick = naturals[0]
            for shape, use in uses:
                if use.get(pick) and _fits(use, have):
                    rest = walk(have - use)
                    if rest is not None:
                        result = (shape, *rest)
                        break
        memo[key] = result
        return result

    return walk(+counts)


def finishing_tiles(hand: Iterable[str], joker: str | None) -> list[str]:
    """The tiles whose discard leaves a hand made wholly of melds (each distinct tile once). Kept per sorted
    hand: the seat's rack and its move check list the same hand's moves."""
    return list(_finishing_tiles(tuple(sorted(hand, key=tile_key)), joker))


def _finishing_tiles_uncached(tiles: tuple[str, ...], joker: str | None) -> tuple[str, ...]:
    shapes = hand_melds(tiles, joker)
    covered = {tile for shape in shapes for tile in shape.tiles}
    loose = {tile for tile in tiles if tile not in covered}
    if len(loose) > 1:
        return ()
    candidates = sorted(loose) if loose else sorted(set(tiles), key=tile_key)
    uses = [(shape, _use(shape)) for shape in shapes]
    out = []
    for tile in candidates:
        rest = Counter(tiles)
        rest[tile] -= 1
        if _partition(rest, uses, joker) is not None:
            out.append(tile)
    return tuple(out)


_finishing_tiles = lru_cache(maxsize=4096)(_finishing_tiles_uncached)


def code_for(color: str, position: int, joker: str | None) -> str:
    """The hand tile a run position needs (the false joker for the joker's own tile)."""
    return code_of(color, position, joker)
