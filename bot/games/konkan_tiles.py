"""Konkan with tiles in chat: the rummy picker of bot/games/rummy.py over the rack's tiles, and direct buttons for
the draw step (draw / take), the decider round's option and the openings or Konkan finishes the engine lists whole.

What a selection may do is read from the engine's legal moves: the tiles selected (a multiset of physical tiles) are
matched against every listed meld, lay-off, joker steal, lock, hidden finish and discard, so a button never offers a
move the engine would not take — except a move built from set-aside melds (an opening or a Konkan finish in several
melds), which the engine still checks when pressed. The rack's sort button is "Arrange": one press groups the tiles
into their best melds (renderers.konkan_tiles.arrange, the same grouping the picture and its value counter show).

The table's mode picks the turn timers (the mode table's draw and discard seconds); a chat's own /timer only times
private rooms, which the rules leave untimed — a competitive table's pace is the mode's, not the chat's, except that
a chat that turned timers off (/timer 0, as the terminal game does) has none (decisions where the rules are silent).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from bot.games.base import UIButton, rows
from bot.games.rummy import Pick, RummyUI
from bot.i18n import t, tn
from bot.sheet import Sheet
from engine.konkan_tiles.modes import KIRKUK, MODES
from engine.konkan_tiles.tiles import FALSE_JOKER, bare, tile_key
from renderers.konkan_tiles import arrange

COLOUR_MARK = {"R": "🟥", "K": "⬛", "B": "🟦", "Y": "🟨"}
FINISH_KINDS = ("normal", "hidden", "konkan", "konkan10")  # how a round's finisher went out (engine round log)
DIRECT_LIMIT = 4  # whole openings / Konkan finishes offered as one button each
PICKER_MODES = ("quick", "ranked", "sulaymaniyah", "turbo", "tournament", KIRKUK, "private")
OPEN_TOURNAMENT = False  # tournament tables are opened by a bracket (bot/core/tournaments.py), never from /new


def tile_label(cell: str) -> str:
    """`R9` -> 🟥9, the false joker ✳, a joker cell `R8:B6` -> 🟥8=🟦6."""
    if ":" in cell:
        tile, stands = cell.split(":", 1)
        return f"{tile_label(tile)}={tile_label(stands)}"
    if cell == FALSE_JOKER:
        return "✳"
    return f"{COLOUR_MARK.get(cell[:1], cell[:1])}{cell[1:]}"


def tiles_text(cells: list[str]) -> str:
    return " ".join(tile_label(cell) for cell in cells) or "—"


def tile_code(cell: str) -> str:
    """The tile as the text of the rack and table shows it: its colour mark and the code a typed move uses (`R9` ->
    🟥R9, the false joker ✳F, a joker cell `R8:B6` -> 🟥R8=🟦B6), so the squares teach the letters."""
    if ":" in cell:
        tile, stands = cell.split(":", 1)
        return f"{tile_code(tile)}={tile_code(stands)}"
    if cell == FALSE_JOKER:
        return "✳" + FALSE_JOKER
    return f"{COLOUR_MARK.get(cell[:1], '')}{cell}"


def meld_text(meld: dict[str, Any], joker: str | None) -> str:
    """A table meld with codes; a joker in a set (the engine keeps no `:` there) says what it stands for: the set's
    number in the colour(s) still missing (`🟥R4=⬛9/🟨9`), and a false joker the joker's own tile."""
    cells: list[str] = list(meld.get("cards") or [])
    face = {cell: joker if cell == FALSE_JOKER and joker else cell for cell in cells}
    wild = [cell for cell in cells if joker and cell == joker]
    if meld.get("kind") != "set" or not joker or not wild or len(wild) == len(cells):
        return " ".join(_with_face(cell, joker) for cell in cells)
    natural = [face[cell] for cell in cells if cell not in wild]
    number = natural[0][1:]
    missing = [colour for colour in COLOUR_MARK if colour not in {tile[0] for tile in natural}]
    if joker[1:] == number and joker[0] in missing:  # the joker tile may be sitting as itself: nothing to add
        return " ".join(_with_face(cell, joker) for cell in cells)
    stands = "/".join(tile_code(colour + number) for colour in missing)
    return " ".join(f"{tile_code(cell)}={stands}" if cell in wild else _with_face(cell, joker) for cell in cells)


def _with_face(cell: str, joker: str | None) -> str:
    return f"{tile_code(cell)}={tile_code(joker)}" if cell == FALSE_JOKER and joker else tile_code(cell)


def _bag(cells: list[str]) -> Counter:
    return Counter(bare(cell) for cell in cells)


def _legal(view: dict[str, Any]) -> list[str]:
    return list(view.get("_legal") or [])


def _meld_parts(view: dict[str, Any]) -> list[str]:
    """Every single meld the legal moves contain (the parts of multi-meld moves too), first listed first."""
    seen: dict[str, None] = {}
    for move in _legal(view):
        if move.startswith("meld "):
            for part in move[5:].split(" | "):
                seen.setdefault(part.strip(), None)
    return list(seen)


def _opening_short(view: dict[str, Any], seat: int) -> bool:
    """Melds laid this turn towards an opening that is still below the seat's minimum."""
    if (view.get("opened") or [None] * 4)[seat] is not None or (view.get("konkan") or [False] * 4)[seat]:
        return False
    have = view.get("opening", 0)
    return 0 < have < (view.get("minimum") or [0] * 4)[seat]


def _matching(view: dict[str, Any], verb: str, tiles: list[str]) -> list[str]:
    """Legal moves of one verb whose tiles (before `to`/`for`) are exactly the selected tiles."""
    chosen = Counter(tiles)
    out = []
    for move in _legal(view):
        words = move.split()
        if words[0] != verb:
            continue
        cut = next((i for i, word in enumerate(words) if word in ("to", "for")), len(words))
        if _bag(words[1:cut]) == chosen:
            out.append(move)
    return out


class KonkanTilesUI(RummyUI):
    game_id = "konkan_tiles"
    turn_seconds = 60  # unused: a mode times its own steps, and a private room only by the chat's /timer
    toggles_per_row = 5

    # ---- table modes ------------------------------------------------------------------------------------------
    def option_values(self, name: str, spec: Any, options: dict[str, Any] | None = None) -> tuple[Any, ...]:
        """The mode is chosen with the mode picker before the table opens; only a private room's creator chooses
        the rules (Standard Erbil or Sulaymaniyah)."""
        if name == "rules" and (options or {}).get("mode") == "private":
            return tuple(spec.choices)
        return ()

    def shown_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The Sulaymaniyah mode is played by Sulaymaniyah rules: its lobby line names them once."""
        if options.get("mode") == options.get("rules"):
            return {name: value for name, value in options.items() if name != "rules"}
        return options

    def mode_choices(self, lang: str) -> list[tuple[str, str]]:
        out = []
        for mode in PICKER_MODES:
            if mode == "tournament" and not OPEN_TOURNAMENT:
                label = t(lang, "kt.pick.tournament_closed")
            elif mode == KIRKUK:
                label = t(lang, "kt.pick.kirkuk")
            else:
                label = t(lang, f"kt.pick.{mode}")
            out.append((label, mode))
        return out

    def mode_refusal(self, mode: str, lang: str) -> str | None:
        if mode == KIRKUK:
            return t(lang, "kt.kirkuk_soon")
        if mode == "tournament" and not OPEN_TOURNAMENT:
            return t(lang, "kt.no_tournament")
        return None

    def store_mode(self, options: dict[str, Any]) -> str:
        return str(options.get("mode") or "quick")

    def counts_in_stats(self, options: dict[str, Any]) -> bool:
        return options.get("mode") != "private"

    def queue_modes(self) -> tuple[str, ...]:
        """The seed's matchmaking modes; a private room (friends by invite) and a bracket's table are never queued."""
        return ("quick", "ranked", "sulaymaniyah", "turbo")

    def queue_options(self, mode: str) -> dict[str, Any]:
        return {"mode": mode}

    def rated(self, options: dict[str, Any], chat_rates: bool) -> bool:
        """Only `ranked` feeds the ladder, whatever the chat chose: quick and Sulaymaniyah "do not affect global rank",
        private rooms affect nothing, Turbo counts for its achievements only (konkan-tiles.md, modes); a tournament's
        matches are rated by their bracket, not the ladder (decision: the seed lists no rank for them)."""
        return options.get("mode") == "ranked"

    def ladder_modes(self) -> tuple[str, ...]:
        return ("ranked", "quick", "sulaymaniyah", "turbo", "tournament")

    def start_refusal(self, options: dict[str, Any], humans: int, bots: int, lang: str) -> str | None:
        """Ranked is four humans, never a bot (so a ranked result is never unbalanced)."""
        if options.get("mode") == "ranked" and (bots or humans != 4):
            return t(lang, "kt.ranked_four", n=humans)
        return None

    def bots_allowed(self, options: dict[str, Any]) -> bool:
        return options.get("mode") != "ranked"

    def invites(self, options: dict[str, Any]) -> bool:
        return options.get("mode") == "private"

    def timer_seconds(self, view: dict[str, Any], options: dict[str, Any], chat_timer: int | None) -> float | None:
        """The mode's seconds for the step the seat is at: the draw, else the discard (which ends the turn)."""
        timers = view.get("timers")
        if not timers or chat_timer == 0:  # a chat (or the terminal) that turned timers off
            return chat_timer or None
        return timers["draw"] if view.get("phase") == "draw" else timers["discard"]

    # ---- rummy hooks ------------------------------------------------------------------------------------------
    def card_label(self, code: str) -> str:
        return tile_label(code)

    def card_sort_key(self, code: str) -> tuple:
        return tile_key(code)

    def sort_toggle(self, sort: str) -> tuple[str, str]:
        return ("r", "kt.c.unarrange") if sort == "a" else ("a", "kt.c.arrange")

    def order(self, hand: Any, sort: str, view: dict[str, Any] | None = None) -> list[int]:
        if sort == "a":
            return arrange(list(hand), (view or {}).get("joker")).order
        return list(range(len(hand)))

    def rack_view(self, view: dict[str, Any], pick: str | None) -> dict[str, Any]:
        """The picture groups the melds when the rack is arranged (the renderer reads `arranged`)."""
        state = self.pick_of(view, pick)
        return {**view, "arranged": state.sort == "a"}

    def meld_shape(self, cards: list[str], view: dict[str, Any]) -> bool:
        chosen = Counter(cards)
        return any(_bag(part.split()) == chosen for part in _meld_parts(view))

    def meld_move(self, groups: list[list[str]], view: dict[str, Any]) -> str:
        parts = _meld_parts(view)
        texts = []
        for group in groups:
            chosen = Counter(group)
            texts.append(next((part for part in parts if _bag(part.split()) == chosen), " ".join(group)))
        return "meld " + " | ".join(texts)

    def may_stage(self, view: dict[str, Any]) -> bool:
        """Several melds at once: an opening short of the minimum alone, or a Konkan finish."""
        seat = view.get("seat")
        if seat is None:
            return False
        return (view.get("opened") or [None] * 4)[seat] is None or bool((view.get("konkan") or [False] * 4)[seat])

    def add_moves(self, cards: list[str], view: dict[str, Any]) -> list[tuple[int, str, bool]]:
        out: dict[int, str] = {}
        for move in _matching(view, "add", cards):
            out.setdefault(int(move.split()[-1]), move)
        return [(number, move, True) for number, move in sorted(out.items())]

    def discard_button(self, view: dict[str, Any], lang: str, state: Pick, hand: Any,
                       card: str) -> UIButton | None:
        """A discard that ends an opening short of the minimum eliminates the player: the rules want a warning and
        a confirmation first, so the first press only arms a second, explicit button."""
        seat = view.get("seat")
        move = self.discard_move(card)
        if seat is None or move not in _legal(view) or not _opening_short(view, seat):
            return super().discard_button(view, lang, state, hand, card)
        values = {"card": tile_label(card), "have": view.get("opening", 0), "n": (view.get("minimum") or [0] * 4)[seat]}
        if state.confirm:
            return UIButton(t(lang, "kt.c.discard_confirm", **values), "move", move=move)
        return self._pick_button(t(lang, "kt.c.discard_warn", **values), replace(state, confirm=True), hand)

    def extra_actions(self, view: dict[str, Any], legal: list[str], lang: str, pick: Pick,
                      cards: list[str]) -> list[UIButton]:
        """Stealing a joker, the Konkan finish's locks and the hidden finish, for the selected tiles."""
        out: list[UIButton] = []
        if not cards or pick.staged:
            return out
        for move in _matching(view, "swap", cards):
            out.append(UIButton(t(lang, "kt.c.steal", n=move.split()[-1]), "move", move=move))
        for move in _matching(view, "lock", cards):
            words = move.split()
            out.append(UIButton(t(lang, f"kt.c.lock_{words[-1]}", n=words[-2]), "move", move=move))
        for move in _matching(view, "finish", cards):
            out.append(UIButton(t(lang, "kt.c.finish", tile=tile_label(cards[0])), "move", move=move))
        return out

    # ---- buttons ----------------------------------------------------------------------------------------------
    def rack_buttons(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None) -> list[list[UIButton]]:
        if not legal:
            return []
        phase = view.get("phase")
        if phase == "option":
            return rows([UIButton(t(lang, f"kt.c.{move.replace(' ', '_')}"), "move", move=move) for move in legal], 1)
        if phase == "draw":
            buttons = [UIButton(t(lang, "kt.c.draw", n=view.get("stock_size", 0)), "move", move="draw")]
            take = self._take_button(view, legal, lang, pick) if "take" in legal else None
            return rows(buttons + ([take] if take else []), 1)
        seat = view.get("seat") or 0
        konkan = bool((view.get("konkan") or [False] * 4)[seat])
        whole = [move for move in legal if move.startswith("meld ") and " | " in move][:DIRECT_LIMIT]
        key = "kt.c.konkan" if konkan else "kt.c.open"
        lead = [[UIButton(t(lang, key, melds=self._melds_text(move)), "move", move=move)] for move in whole]
        return self.picker_buttons({**view, "_legal": legal}, legal, lang, pick, lead=lead)

    def _take_button(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None) -> UIButton | None:
        """Taking the discard before opening puts the player in Konkan mode unless they open with the tile this
        turn (konkan-tiles.md "Voluntary entry"): as with a discard that fails an opening, the first press only
        arms a second, explicit button that warns of it."""
        tile = tile_label(view.get("discard_top") or "?")
        seat = view.get("seat")
        unopened = seat is not None and (view.get("opened") or [None] * 4)[seat] is None
        if not unopened or (view.get("konkan") or [False] * 4)[seat]:
            return UIButton(t(lang, "kt.c.take", tile=tile), "move", move="take")
        state = self.pick_of(view, pick)
        if state.confirm:
            return UIButton(t(lang, "kt.c.take_confirm", tile=tile), "move", move="take")
        return self._pick_button(t(lang, "kt.c.take_warn", tile=tile), replace(state, confirm=True),
                                 view.get("hand") or [])

    def _melds_text(self, move: str) -> str:
        return " · ".join(tiles_text(part.split()) for part in move[5:].split(" | "))

    def move_label(self, move: str, lang: str) -> str:
        return self.describe_move(move, lang)

    # ---- texts ------------------------------------------------------------------------------------------------
    def turn_prompt(self, view: dict[str, Any], lang: str) -> str:
        phase = view.get("phase")
        seat = view.get("seat")
        if phase == "option":
            return t(lang, "kt.p.option")
        if phase == "draw":
            return t(lang, "kt.p.draw")
        if seat is None:
            return t(lang, "kt.p.play")
        finish = view.get("finish")
        if finish:
            return tn(lang, "kt.p.locks", max(0, finish["locks_needed"] - finish["locks_done"]))
        if (view.get("konkan") or [False] * 4)[seat]:
            return t(lang, "kt.p.konkan")
        if view.get("taken") and view.get("to_move") == seat and view.get("opening", 0) > 0:
            # an opening was started: the discard waits until the taken tile is laid in it
            return t(lang, "kt.p.taken", tile=tile_label(view["taken"]), n=(view.get("minimum") or [0] * 4)[seat],
                     have=view.get("opening", 0))
        if (view.get("opened") or [None] * 4)[seat] is None:
            return t(lang, "kt.p.open", n=(view.get("minimum") or [0] * 4)[seat], have=view.get("opening", 0))
        return t(lang, "kt.p.play")

    def describe_move(self, move: str, lang: str, view: dict[str, Any] | None = None) -> str:
        words = move.split()
        if not words:
            return move
        verb = words[0]
        if verb == "meld":
            return t(lang, "kt.m.meld", melds=self._melds_text(move))
        if verb in ("add", "swap") and len(words) >= 4:
            return t(lang, f"kt.m.{verb}", tiles=tiles_text(words[1:-2]), n=words[-1])
        if verb == "lock" and len(words) == 5:
            return t(lang, f"kt.m.lock_{words[4]}", tile=tile_label(words[1]), n=words[3])
        if verb in ("discard", "finish") and len(words) == 2:
            return t(lang, f"kt.m.{verb}", tile=tile_label(words[1]))
        if verb == "option" and len(words) == 2:  # narrated as what happened, not as the button's imperative
            return t(lang, f"kt.m.option_{words[1]}")
        if verb in ("draw", "take") and len(words) == 1:
            return t(lang, f"kt.m.{verb}")
        return move

    def round_sheet(self, detail: dict[str, Any], number: int, view: dict[str, Any], names: list[str],
                    sides: list[str], lang: str) -> Sheet:
        """The default sheet (each side's points and total) under a title that says which round it was (the
        decider by name), who finished it and how: a normal, hidden, Konkan or Konkan-10 finish, or a void."""
        sheet = super().round_sheet(detail, number, view, names, sides, lang)
        regular = int(view.get("rounds") or number)
        number = int(detail.get("round") or number)
        label = t(lang, "kt.sheet.decider") if number > regular else t(lang, "kt.sheet.round", n=number)
        finisher, kind = detail.get("finisher"), detail.get("kind", "normal")
        if finisher is None or kind == "void":
            title = t(lang, "kt.sheet.void", round=label)
        else:
            name = names[finisher] if finisher < len(names) else "?"
            title = t(lang, f"kt.sheet.{kind if kind in FINISH_KINDS else 'normal'}", round=label, name=name)
        return replace(sheet, title=title)

    def _status(self, view: dict[str, Any], seat: int, lang: str) -> str:
        if (view.get("eliminated") or [False] * 4)[seat]:
            return t(lang, "kt.s.eliminated")
        if (view.get("konkan") or [False] * 4)[seat]:
            return t(lang, "kt.s.konkan")
        opened = (view.get("opened") or [None] * 4)[seat]
        if opened is not None:
            return t(lang, "kt.s.opened", n=opened)
        return t(lang, "kt.s.needs", n=(view.get("minimum") or [0] * 4)[seat])

    def describe_rack(self, view: dict[str, Any], lang: str) -> str:
        hand: list[str] = view.get("hand") or []
        plan = arrange(hand, view.get("joker"))
        tiles = "  ".join(f"{p + 1}) {tile_code(code)}" for p, code in enumerate(hand)) or "—"
        groups = "  ".join("[" + " ".join(str(p + 1) for p in group) + "]" for group in plan.groups) or "—"
        lines = [t(lang, "kt.rack", n=len(hand), tiles=tiles), t(lang, "kt.grouped_value", n=plan.value, groups=groups)]
        if FALSE_JOKER in hand and view.get("joker"):
            lines.append(t(lang, "kt.false_joker", joker=tile_code(view["joker"])))
        seat = view.get("seat")
        if seat is not None:
            lines.append(self._status(view, seat, lang))
        return "\n".join(lines)

    def round_notes(self, view: dict[str, Any], lang: str, names: list[str]) -> list[str]:
        """The decider round (konkan-tiles.md "Match structure") says it is one, and who plays it in forced Konkan
        mode (the trailing side within 400) or that the tied totals play it under normal rules."""
        if not view.get("decider"):
            return []
        forced = [names[seat] if seat < len(names) else "?" for seat in view.get("forced") or []]
        if not forced:
            return [t(lang, "kt.decider_tied")]
        together = forced[0] if len(forced) == 1 else t(lang, "team", a=forced[0], b=" & ".join(forced[1:]))
        return [t(lang, "kt.decider_forced", names=together)]

    def describe_table(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        top = view.get("discard_top")
        key = "kt.table_decider" if view.get("decider") else "kt.table_round"
        lines = [t(lang, key, mode=t(lang, f"opt.mode.{view.get('mode', 'quick')}"),
                   n=view.get("round", 1), total=view.get("rounds", 5)),  # who plays forced: the caption's note
                 t(lang, "kt.table_piles", stock=view.get("stock_size", 0), left=view.get("reshuffles_left", 0),
                   top=tile_code(top) if top else "—", indicator=tile_code(view.get("indicator") or "—"),
                   joker=tile_code(view.get("joker") or "—"))]
        for seat, size in enumerate(view.get("hand_sizes") or []):
            name = names[seat] if seat < len(names) else "?"
            lines.append(tn(lang, "kt.table_seat", size, name=name, status=self._status(view, seat, lang)))
        for meld in view.get("melds") or []:
            locks = " 🔒" if meld.get("locked") and any(meld["locked"]) else ""
            lines.append(f"  #{meld['number']} {meld_text(meld, view.get('joker'))}{locks}")
        return "\n".join(lines)


UI = KonkanTilesUI()
__all__ = ["MODES", "UI", "KonkanTilesUI", "meld_text", "tile_code", "tile_label"]
