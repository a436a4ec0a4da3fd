"""Konkan tiles computer players, deciding from their seat's view and legal moves only.

`normal` plays the plan the seed's tips describe: finish whenever a finish is legal (hidden, ordinary or Konkan);
open as soon as the melds in hand reach the dynamic minimum, all in one move (never a half opening that would
eliminate it, never a lay-off before opening, which is the Konkan trap); once open, steal jokers, lay melds and lay
off to empty the hand; take the last discard only when it opens the hand, improves an opened hand, or feeds a
Konkan run that is close (eight of its ten tiles in hand); and discard the tile that helps its melds least -
high tiles first once open (they are the penalty), never a joker, and not a tile the next player can lay off.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.bots import RandomBot
from engine.konkan_tiles import melds as M
from engine.konkan_tiles.tiles import HIGH_ACE, bare, natural, tile_key, tile_value

KONKAN_READY = 8  # tiles of a 10-window held (jokers count) before the bot commits to Konkan


def _entries(words: list[str]) -> list[M.Entry]:
    out: list[M.Entry] = []
    for word in words:
        tile, _, stand = word.partition(":")
        out.append((tile, stand or None))
    return out


def meld_value(move: str, joker: str | None) -> tuple[int, int]:
    """(value, tiles) of a canonical `meld` move."""
    groups = [part.split() for part in move[len("meld "):].split(" | ")]
    value = tiles = 0
    for group in groups:
        shapes = M.read(_entries(group), joker, konkan=len(group) == M.KONKAN_RUN)
        if shapes:
            value += shapes[0].value
        tiles += len(group)
    return value, tiles


def konkan_window(hand: list[str], joker: str | None) -> tuple[int, str, int]:
    """(tiles held, colour, first position) of the 10-run window this hand is closest to."""
    wilds = sum(1 for tile in hand if joker is not None and tile == joker)
    have = {natural(tile, joker) for tile in hand if natural(tile, joker) is not None}
    best = (0, "R", 1)
    for color in "RKBY":
        for low in range(1, 6):
            held = sum(1 for p in range(low, low + 10) if (color, 1 if p == HIGH_ACE else p) in have)
            score = min(10, held + min(wilds, 2))
            if score > best[0]:
                best = (score, color, low)
    return best


def _in_window(tile: str, joker: str | None, color: str, low: int) -> bool:
    found = natural(tile, joker)
    if found is None:
        return True
    c, n = found
    return c == color and (low <= n <= low + 9 or (n == 1 and low + 9 >= HIGH_ACE))


class NormalBot:
    level = "normal"

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        if len(legal) == 1:
            return legal[0]
        phase = view["phase"]
        if phase == "option":
            held, _, _ = konkan_window(view["hand"], view["joker"])
            return "option none" if held >= 6 else "option reshuffle"
        if phase == "draw":
            return self._draw(view, legal)
        return self._play(view, legal)

    # ---- drawing --------------------------------------------------------------------------------------------
    def _draw(self, view: dict[str, Any], legal: list[str]) -> str:
        if "take" not in legal:
            return "draw"
        seat = view["seat"]
        top = view["discard_top"]
        hand = list(view["hand"])
        joker = view["joker"]
        konkan = view["konkan"][seat]
        giver = view["take_from"]
        if giver is not None and view["konkan"][giver] and not konkan and view["konkan_takes"][seat] >= 1:
            return "draw"  # a second take from a Konkan player must finish at once
        with_top = tuple(sorted([*hand, top], key=tile_key))
        without = tuple(sorted(hand, key=tile_key))
        if konkan:
            held, color, low = konkan_window(hand, joker)
            after, _, _ = konkan_window([*hand, top], joker)
            return "take" if after > held and _in_window(top, joker, color, low) else "draw"
        if view["opened"][seat] is not None:
            gain = M.best_opening(with_top, joker)[0] - M.best_opening(without, joker)[0]
            fits = any(_fits_table(top, meld, joker) for meld in view["melds"])
            return "take" if gain >= 6 or fits else "draw"
        value, _ = M.best_opening(with_top, joker, top)
        if value >= view["minimum"][seat]:
            return "take"
        held, color, low = konkan_window(hand, joker)
        after, _, _ = konkan_window([*hand, top], joker)
        if after >= KONKAN_READY and after > held and _in_window(top, joker, color, low):
            return "take"
        return "draw"

    # ---- playing --------------------------------------------------------------------------------------------
    def _play(self, view: dict[str, Any], legal: list[str]) -> str:
        seat = view["seat"]
        joker = view["joker"]
        by_verb: dict[str, list[str]] = {}
        for move in legal:
            by_verb.setdefault(move.split()[0], []).append(move)
        if by_verb.get("finish"):
            return by_verb["finish"][0]
        finish = view["finish"]
        if finish:
            if finish["locks_done"] < finish["locks_needed"] and by_verb.get("lock"):
                return by_verb["lock"][0]
            return by_verb["discard"][0]
        melds = by_verb.get("meld", [])
        konkan_finish = [move for move in melds if meld_value(move, joker)[1] >= M.KONKAN_RUN]
        if konkan_finish:
            return konkan_finish[0]
        opened = view["opened"][seat] is not None
        if by_verb.get("swap") and (opened or view["konkan"][seat]):
            return by_verb["swap"][0]
        if opened:
            if melds:
                return max(melds, key=lambda move: (meld_value(move, joker)[1], meld_value(move, joker)[0], move))
            adds = [move for move in by_verb.get("add", []) if joker is None or joker not in move.split()]
            if adds:
                return max(adds, key=lambda move: (len(move.split()), move))
        elif not view["konkan"][seat] and melds:
            need = view["minimum"][seat] - view["opening"]
            opening = [move for move in melds if meld_value(move, joker)[0] >= need]
            if opening:
                return max(opening, key=lambda move: (meld_value(move, joker)[0], move))
        return self._discard(view, by_verb.get("discard") or legal)

    # ---- discarding -----------------------------------------------------------------------------------------
    def _discard(self, view: dict[str, Any], options: list[str]) -> str:
        seat = view["seat"]
        hand = list(view["hand"])
        joker = view["joker"]
        opened = view["opened"][seat] is not None
        konkan = view["konkan"][seat]
        key = tuple(sorted(hand, key=tile_key))
        _, packed = M.best_opening(key, joker)
        in_melds = Counter(tile for shape in packed for tile in shape.tiles)
        window = konkan_window(hand, joker)
        nxt = (seat + 1) % view["players"]
        nxt_open = view["opened"][nxt] is not None
        have = Counter(natural(tile, joker) for tile in hand if natural(tile, joker) is not None)

        def keep(move: str) -> float:
            tile = move.split()[1]
            found = natural(tile, joker)
            if found is None:
                return 1000.0
            score = 0.0
            if in_melds[tile]:
                score += 100.0
            color, number = found
            score += 12 * sum(1 for c in "RKBY" if c != color and have[(c, number)])
            score += 9 * sum(1 for d in (-2, -1, 1, 2) if have[(color, number + d)])
            if have[found] > 1:
                score -= 10  # a duplicate helps no meld twice
            if konkan and _in_window(tile, joker, window[1], window[2]):
                score += 150.0
            if opened:
                score -= tile_value(tile, joker) * 1.5
            if nxt_open and any(_fits_table(tile, meld, joker) for meld in view["melds"]):
                score += 40.0
            return score

        return min(options, key=lambda move: (keep(move), move))


def _fits_table(tile: str, meld: dict[str, Any], joker: str | None) -> bool:
    table = {"kind": meld["kind"], "cards": meld["cards"], "locked": meld["locked"]}
    if meld["kind"] == "set":
        found = natural(bare(next(c for c in meld["cards"] if natural(bare(c), joker) is not None)), joker)
        table["number"] = found[1] if found else 0
    else:
        shapes = M.read(M.table_entries(meld), joker, konkan=len(meld["cards"]) == M.KONKAN_RUN)
        if not shapes:
            return False
        table.update(color=shapes[0].color, low=shapes[0].low, high=shapes[0].high)
    return bool(M.extend(table, [(tile, None)], joker))


def _expert() -> Any:
    from engine.konkan_tiles.expert import ExpertKonkanTilesBot  # late: its search asks this module for "normal"

    return ExpertKonkanTilesBot()


BOTS = {"random": RandomBot, "normal": NormalBot, "expert": _expert}
