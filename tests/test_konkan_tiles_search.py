"""The faster meld searches (engine/konkan_tiles/melds.py: packed counts in the best-opening search, windows
passed over in `hand_melds`, readings kept per entries) give exactly what the straightforward searches they
replaced gave: the same melds in the same order, the same best opening (ties broken alike), so every listed move,
every bot choice and every rack arrangement stays as it was.

The reference functions below are the previous implementation, kept here verbatim (only renamed) as the oracle;
they are compared on the hands of whole bot matches and on random hands with jokers and false jokers."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

import engine
from engine.bots import decide
from engine.konkan_tiles import melds as M
from engine.konkan_tiles.melds import KONKAN_RUN, RUN_LENGTHS, SET_LENGTHS, Entry, Shape, position_code
from engine.konkan_tiles.tiles import COLORS, DECK, FALSE_JOKER, HIGH_ACE, joker_of, natural, tile_key

GAME = engine.get("konkan_tiles")


# ---- the previous implementation (the oracle) --------------------------------------------------------------
def _positions(number: int, low: int, high: int) -> list[int]:
    options = [number] + ([HIGH_ACE] if number == 1 else [])
    return [p for p in options if low <= p <= high]


def ref_read(entries: Sequence[Entry], joker: str | None, *, konkan: bool = False) -> list[Shape]:
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
        return []
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
            shape = _ref_run_window(naturals, stands, joker, color, low, low + size - 1)
            if shape is not None:
                shapes.append(shape)
    return shapes


def _ref_run_window(naturals: list[tuple[str, str, int]], stands: list[str | None], joker: str | None, color: str,
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


@lru_cache(maxsize=4096)
def ref_hand_melds(hand: tuple[str, ...], joker: str | None, konkan: bool = False) -> tuple[Shape, ...]:
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
                        for shape in ref_read(entries, joker):
                            if shape.kind == "set":
                                found.setdefault(shape.cells, shape)
    lengths = (KONKAN_RUN,) if konkan else RUN_LENGTHS
    for color in COLORS:
        for size in lengths:
            for low in range(1, HIGH_ACE - size + 2):
                spots = range(low, low + size)
                missing = [p for p in spots if (color, 1 if p == HIGH_ACE else p) not in available]
                limit = min(wilds, 1 if size == 3 else 2)
                if len(missing) > limit:
                    continue
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


@lru_cache(maxsize=4096)
def ref_best_opening(hand: tuple[str, ...], joker: str | None, must: str | None = None,
                     keep: int = 1) -> tuple[int, tuple[Shape, ...]]:
    shapes = ref_hand_melds(tuple(sorted(hand, key=tile_key)), joker)
    by_tile: dict[str, list[tuple[Shape, tuple[tuple[str, int], ...], Counter]]] = {}
    for shape in shapes:
        use = Counter(shape.tiles)
        item = (shape, tuple(use.items()), use)
        for tile in use:
            by_tile.setdefault(tile, []).append(item)
    order = [tile for tile in sorted(set(hand), key=tile_key) if tile in by_tile and natural(tile, joker) is not None]
    counts = Counter(tile for tile in hand if tile in by_tile)
    limit = len(hand) - keep
    memo: dict[tuple, tuple[int, tuple[Shape, ...], int] | None] = {}

    def walk(have: Counter, need: str | None) -> tuple[int, tuple[Shape, ...], int] | None:
        key = (tuple(have[tile] for tile in order), have.get(joker, 0) if joker else 0, need)
        if key in memo:
            return memo[key]
        pick = need if need is not None else next((tile for tile in order if have[tile]), None)
        if pick is None:
            memo[key] = (0, (), 0)
            return memo[key]
        best: tuple[int, tuple[Shape, ...], int] | None = None
        if need is None:
            rest = Counter(have)
            rest[pick] -= 1
            best = walk(rest, None)
        for shape, items, use in by_tile.get(pick, ()):
            if all(have.get(tile, 0) >= n for tile, n in items):
                after = walk(have - use, None)
                if after is None:
                    continue
                option = (after[0] + shape.value, (shape, *after[1]), after[2] + len(shape.cells))
                if best is None or option[0] > best[0]:
                    best = option
        memo[key] = best
        return best

    found = walk(counts, must)
    if found is None or not found[1]:
        return 0, ()
    if found[2] <= limit:
        return found[0], found[1]
    best_value, best_shapes = 0, ()
    for tile in sorted(set(hand), key=tile_key):
        if tile == must:
            continue
        rest = list(hand)
        rest.remove(tile)
        value, melds = ref_best_opening(tuple(rest), joker, must, keep - 1 if keep > 1 else 0)
        if value > best_value:
            best_value, best_shapes = value, melds
    return best_value, best_shapes


# ---- hands to compare on -----------------------------------------------------------------------------------
def match_hands(seeds: range, moves: int) -> list[tuple[tuple[str, ...], str | None]]:
    """Every hand (and round joker) seen to move in bot matches: the hands the searches really meet."""
    out = []
    for seed in seeds:
        players, options = ((2, None), (4, None), (4, {"mode": "sulaymaniyah"}))[seed % 3]
        state = GAME.new(players, options, seed=seed)
        rng = random.Random(seed)
        for _ in range(moves):
            seat = GAME.to_move(state)
            if seat is None:
                break
            out.append((tuple(state["hands"][seat]), state["joker"]))
            state = GAME.apply(state, seat, decide("konkan_tiles", state, seat, "normal", rng))
    return out


def random_hands(count: int, seed: int) -> list[tuple[tuple[str, ...], str | None]]:
    """Random hands of 3 to 22 tiles, rich in jokers, false jokers and pairs (a joker-less round holds no
    false joker: it needs an indicator to be read)."""
    rng = random.Random(seed)
    numbered = [tile for tile in DECK if tile != FALSE_JOKER]
    out = []
    for index in range(count):
        joker = None if index % 7 == 0 else joker_of(rng.choice(numbered))
        pool = list(DECK) if joker else numbered
        if joker:
            pool += [joker, FALSE_JOKER] * 2  # more wild and false jokers than a deal gives, to stress them
        hand = rng.sample(pool, rng.randint(3, 22))
        counts = Counter(hand)
        hand = [tile for tile in hand if counts[tile] <= 2 or tile == hand[0]]  # at most two copies, mostly
        out.append((tuple(hand), joker))
    return out


def cases() -> list[tuple[tuple[str, ...], str | None]]:
    return match_hands(range(3), 200) + random_hands(250, 14)


def test_hand_melds_lists_the_same_melds_in_the_same_order():
    for hand, joker in cases():
        key = tuple(sorted(hand, key=tile_key))
        assert M.hand_melds(key, joker) == ref_hand_melds(key, joker), (hand, joker)
        if len(hand) >= KONKAN_RUN:
            assert M.hand_melds(key, joker, True) == ref_hand_melds(key, joker, True), (hand, joker)


def test_best_opening_finds_the_same_melds_for_every_keep_and_must():
    for hand, joker in cases():
        musts = [None, sorted(set(hand), key=tile_key)[len(set(hand)) // 2]]
        for must in musts:
            for keep in (0, 1, 2):
                assert M.best_opening(hand, joker, must, keep) == ref_best_opening(hand, joker, must, keep), \
                    (hand, joker, must, keep)


def test_best_opening_does_not_depend_on_the_order_of_the_hand():
    for hand, joker in random_hands(100, 15):
        shuffled = list(hand)
        random.Random(len(hand)).shuffle(shuffled)
        assert M.best_opening(tuple(shuffled), joker) == ref_best_opening(hand, joker)


def test_readings_are_the_same_and_a_fresh_list_each_time():
    for hand, joker in random_hands(300, 16):
        for size in (3, 4, 5):
            entries = [(tile, None) for tile in hand[:size]]
            assert M.read(entries, joker) == ref_read(entries, joker)
    entries = [("R5", None), ("R6", None), ("R7", None)]
    first = M.read(entries, None)
    first.clear()  # a caller changing its list does not change what the next reader gets
    assert M.read(entries, None) == ref_read(entries, None) != []


def test_finishing_tiles_do_not_depend_on_the_order_of_the_hand():
    found = 0
    for hand, joker in cases():
        expected = M.finishing_tiles(sorted(hand, key=tile_key), joker)
        shuffled = list(hand)
        random.Random(len(hand)).shuffle(shuffled)
        answer = M.finishing_tiles(shuffled, joker)
        assert answer == expected, (hand, joker)
        answer.append("R1")  # a caller's list is its own
        assert M.finishing_tiles(shuffled, joker) == expected
        found += bool(expected)
    assert found  # some hands do finish
