"""Konkan with cards in chat: the rummy picker of bot/games/rummy.py for melds, lay-offs, joker swaps and
discards, plus one button each for the draw step (draw / take the discard / commit to Konkan).

Phases follow the engine's view: "first" (the round's first turn: pick one card to discard; commit in the final
round), "draw", and "play". A joker in a run needs its place named (`X:7H`): the picker's meld and add buttons
take the highest-valued place, and the other places are offered as buttons of their own. After a take the moves
that meld the taken card are few, so they are offered directly beside the picker.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bot.games.base import UIButton, rows
from bot.games.rummy import Pick, RummyUI
from bot.i18n import t
from bot.sheet import Sheet, signed
from engine.cards import JOKER
from engine.errors import IllegalMove
from engine.konkan_cards.cards import card_key, is_joker, suit_key
from engine.konkan_cards.melds import Meld, lay_off, readings, tokens_of

SUIT_MARK = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
DIRECT_LIMIT = 6


def card_label(code: str) -> str:
    if code == JOKER:
        return "🃏"
    if code.startswith(JOKER + ":"):
        return "🃏=" + card_label(code[2:])
    return f"{'10' if code[0] == 'T' else code[0]}{SUIT_MARK.get(code[1], code[1])}"


def cards_text(cards: list[str]) -> str:
    return " ".join(card_label(code) for code in cards) or "—"


def _plain(cards: list[str]) -> Counter:
    return Counter(JOKER if is_joker(card) else card for card in cards)


def _ways(cards: list[str]) -> list[Meld]:
    """Every reading of the selected cards as one meld, best worth first (one per place of a joker)."""
    found, _ = readings([(card, None) for card in cards])
    return sorted(found, key=lambda meld: -meld.value)


class KonkanCardsUI(RummyUI):
    game_id = "konkan_cards"
    turn_seconds = 90  # a turn is several presses (draw, melds, discard); each move restarts the timer

    # ---- rummy hooks ------------------------------------------------------------------------------------------
    def card_label(self, code: str) -> str:
        return card_label(code)

    def card_sort_key(self, code: str) -> tuple:
        return card_key(code)

    def suit_sort_key(self, code: str) -> tuple:
        return suit_key(code)

    def rack_view(self, view: dict[str, Any], pick: str | None) -> dict[str, Any]:
        """Before opening, the picture also shows what the staged melds and the selection are worth towards the
        minimum (`selection_total`; a selection that is no meld yet adds nothing)."""
        out = super().rack_view(view, pick)
        seat = view.get("seat")
        hand = view.get("hand") or []
        state = self.pick_of(view, pick)
        if seat is None or state.empty or (view.get("opened") or [True] * 4)[seat]:
            return out
        groups = [[hand[p] for p in group] for group in state.staged]
        groups.append([hand[p] for p in sorted(state.selected)])
        out["selection_total"] = sum(ways[0].value for group in groups if len(group) >= 3 and (ways := _ways(group)))
        return out

    def meld_move(self, groups: list[list[str]], view: dict[str, Any]) -> str:
        texts = []
        for group in groups:
            ways = _ways(group)
            texts.append(ways[0].text() if ways else " ".join(group))
        return "meld " + " | ".join(texts)

    def meld_shape(self, cards: list[str], view: dict[str, Any]) -> bool:
        return len(cards) >= 3 and bool(_ways(cards))

    def may_stage(self, view: dict[str, Any]) -> bool:
        """Only an opening needs several melds in one move (and a Konkan: a run and a set at once)."""
        seat = view.get("seat")
        return seat is not None and not (view.get("opened") or [False] * 4)[seat]

    def add_moves(self, cards: list[str], view: dict[str, Any]) -> list[tuple[int, str, bool]]:
        seat = view.get("seat")
        opened = seat is not None and (view.get("opened") or [False] * 4)[seat]
        out = []
        for meld in view.get("melds") or []:
            grown = _grow(meld["cards"], cards, meld["number"])
            if grown:
                out.append((meld["number"], grown[0], opened))
        return out

    def extra_actions(self, view: dict[str, Any], legal: list[str], lang: str, pick: Pick,
                      cards: list[str]) -> list[UIButton]:
        """Other places for a selected joker, and freeing a table joker with the selected cards."""
        out: list[UIButton] = []
        if not cards or pick.staged:
            return out
        ways = _ways(cards)
        for meld in ways[1:]:
            joker = next((card for card in meld.cards if card.startswith(JOKER + ":")), None)
            if joker:
                out.append(UIButton(t(lang, "konkan.meld_as", cards=cards_text(list(meld.cards))), "move",
                                    move=f"meld {meld.text()}"))
        for meld in view.get("melds") or []:
            for move in _grow(meld["cards"], cards, meld["number"])[1:]:
                out.append(UIButton(t(lang, "rummy.add_cards", cards=cards_text(move.split()[1:-2]),
                                      n=meld["number"]), "move", move=move))
        chosen = _plain(cards)
        for move in legal:
            words = move.split()
            if words[0] == "swap" and _plain(words[1:-2]) == chosen:
                out.append(UIButton(t(lang, "konkan.swap", n=words[-1]), "move", move=move))
        return out

    # ---- buttons ----------------------------------------------------------------------------------------------
    def rack_buttons(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None) -> list[list[UIButton]]:
        if not legal:
            return []
        phase = view.get("phase")
        commit = [[UIButton(t(lang, "konkan.commit"), "move", move="commit")]] if "commit" in legal else []
        if phase == "draw":
            buttons = [UIButton(t(lang, "konkan.draw", n=view.get("stock_size", 0)), "move", move="draw")]
            if "take" in legal:  # a committed player takes without melding (konkan-cards.md, final round)
                key = "konkan.take_committed" if _committed(view) else "konkan.take"
                buttons.append(UIButton(t(lang, key, top=card_label(view.get("discard_top") or "?")),
                                        "move", move="take"))
            return rows(buttons, 1) + commit
        lead = list(commit)
        # A joker swap made while the taken card waits stays with the picker (select the real card), where its
        # button says what it does; the whole-move buttons are the melds and lay-offs that use the taken card.
        direct = [move for move in legal if not move.startswith("swap")]
        if view.get("must_use") and len(direct) <= DIRECT_LIMIT:
            lead += [[UIButton(self.button_label(move, lang), "move", move=move)] for move in direct]
        elif _committed(view):
            lead += [[UIButton(self.button_label(move, lang), "move", move=move)]
                     for move in legal if move.startswith("meld")]
        return self.picker_buttons(view, legal, lang, pick, lead=lead)

    def move_label(self, move: str, lang: str) -> str:
        return self.button_label(move, lang)

    # ---- texts ------------------------------------------------------------------------------------------------
    def turn_prompt(self, view: dict[str, Any], lang: str) -> str:
        phase = view.get("phase")
        seat = view.get("seat")
        if phase == "first":
            key = "konkan.prompt.first_commit" if view.get("can_commit") else "konkan.prompt.first"
            return t(lang, key)
        if phase == "draw":
            if _committed(view):
                return t(lang, "konkan.prompt.draw_committed")
            key = "konkan.prompt.draw_commit" if view.get("can_commit") else "konkan.prompt.draw"
            return t(lang, key)
        if view.get("must_use"):
            return t(lang, "konkan.prompt.must_use", top=card_label(view["must_use"]))
        if seat is not None and (view.get("committed") or [False] * 4)[seat]:
            return t(lang, "konkan.prompt.committed")
        if seat is not None and not (view.get("opened") or [False] * 4)[seat]:
            return t(lang, "konkan.prompt.open", n=view.get("minimum", 51))
        return t(lang, "konkan.prompt.play")

    def describe_move(self, move: str, lang: str, view: dict[str, Any] | None = None) -> str:
        words = move.split()
        if not words:
            return move
        verb = words[0]
        if verb == "meld":
            melds = " · ".join(cards_text(part.split()) for part in move[5:].split(" | "))
            return t(lang, "konkan.m.meld", melds=melds)
        if verb in ("add", "swap") and len(words) >= 4:
            return t(lang, f"konkan.m.{verb}", cards=cards_text(words[1:-2]), n=words[-1])
        if verb == "discard" and len(words) == 2:
            return t(lang, "konkan.m.discard", card=card_label(words[1]))
        if verb in ("draw", "take", "commit") and len(words) == 1:
            return t(lang, f"konkan.m.{verb}")
        return move

    def round_sheet(self, detail: dict[str, Any], number: int, view: dict[str, Any], names: list[str],
                    sides: list[str], lang: str) -> Sheet:
        """Who went out (and how: a Hand, a Konkan) or a void round; each seat's points and why (lower is
        better, rules/konkan-cards.md "Scoring")."""
        went_out = detail.get("went_out")
        if went_out is None:
            title = t(lang, "konkan.sheet.void", n=number)
        else:
            how = "konkan" if detail.get("konkan") else "hand" if detail.get("hand") else "out"
            title = t(lang, f"konkan.sheet.{how}", n=number, name=names[went_out] if went_out < len(names) else "?")
        why = tuple(t(lang, f"konkan.why.{item.get('why', 'cards')}") for item in detail.get("detail") or [])
        rows = (
            ("", why),  # the reason says itself ("went out", "cards in hand"): no row label
            (t(lang, "sheet.points"), tuple(signed(p) for p in detail.get("points", []))),
            (t(lang, "sheet.total"), tuple(str(total) for total in detail.get("totals", []))),
        )
        return Sheet(title, tuple(sides[:len(why)]), rows, points=tuple(detail.get("points", [])))

    def _status(self, view: dict[str, Any], seat: int, lang: str) -> str:
        if (view.get("committed") or [])[seat:seat + 1] == [True]:
            return t(lang, "konkan.committed")
        if (view.get("opened") or [])[seat:seat + 1] == [True]:
            return t(lang, "konkan.opened")
        return t(lang, "konkan.needs", n=view.get("minimum", 51))

    def describe_rack(self, view: dict[str, Any], lang: str) -> str:
        hand: list[str] = view.get("hand") or []
        cards = "  ".join(f"{i + 1}) {card_label(code)}" for i, code in enumerate(hand)) or "—"
        lines = [t(lang, "konkan.rack", n=len(hand), cards=cards)]
        seat = view.get("seat")
        if seat is None:
            return lines[0]
        lines.append(self._status(view, seat, lang))
        own = [m for m in view.get("melds") or [] if m["seat"] == seat]
        if own:
            lines.append(t(lang, "konkan.own_melds", melds="; ".join(
                f"#{m['number']} {cards_text(m['cards'])}" for m in own)))
        if view.get("must_use") and view.get("turn") == seat:
            lines.append(t(lang, "konkan.prompt.must_use", top=card_label(view["must_use"])))
        return "\n".join(lines)

    def round_notes(self, view: dict[str, Any], lang: str, names: list[str]) -> list[str]:
        """An extra round (the lowest totals tied after the fifth, konkan-cards.md "Match") says so."""
        if not _extra(view):
            return []
        return [t(lang, "konkan.extra_round_note", n=view.get("round"), total=view.get("rounds", 5))]

    def describe_table(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        top = view.get("discard_top")
        key = "konkan.table_extra_round" if _extra(view) else "konkan.table_round"
        lines = [t(lang, key, n=view.get("round", 1), total=view.get("rounds", 5), minimum=view.get("minimum", 51)),
                 t(lang, "konkan.table_piles", stock=view.get("stock_size", 0), left=view.get("reshuffles_left", 0),
                   top=card_label(top) if top else "—")]
        hands = view.get("hand_sizes") or []
        for seat, size in enumerate(hands):
            name = names[seat] if seat < len(names) else "?"
            lines.append(t(lang, "konkan.table_seat", name=name, score=(view.get("scores") or [0] * 4)[seat],
                           n=size, status=self._status(view, seat, lang)))
            lines += [f"  #{m['number']} {cards_text(m['cards'])}" for m in view.get("melds") or []
                      if m["seat"] == seat]
        turn = view.get("turn")
        if view.get("must_use") and turn is not None and turn < len(names):
            lines.append(t(lang, "konkan.took", name=names[turn], top=card_label(view["must_use"])))
        return "\n".join(lines)


def _extra(view: dict[str, Any]) -> bool:
    """A round beyond the match's five (played while the lowest totals are tied)."""
    return int(view.get("round", 1)) > int(view.get("rounds", 5))


def _committed(view: dict[str, Any]) -> bool:
    """Whether the view's own seat committed to Konkan (it then takes the discard without melding it)."""
    seat = view.get("seat")
    return seat is not None and bool((view.get("committed") or [False] * 4)[seat])


def _grow(table: list[str], cards: list[str], number: int) -> list[str]:
    """`add` moves that lay `cards` on a table meld, best worth first (one per place of a joker); empty: none."""
    old = tokens_of(table)
    try:
        grown = [lay_off(table, [(card, None) for card in cards])]
    except IllegalMove as error:
        if "say where" not in error.reason:
            return []
        found, _ = readings([*old, *((card, None) for card in cards)])
        grown = [meld for meld in sorted(found, key=lambda meld: -meld.value)
                 if all(card in meld.cards for card in table)]
    moves = []
    for meld in grown:
        added = list(meld.cards)
        for card in table:
            added.remove(card)
        moves.append(" ".join(["add", *added, "to", str(number)]))
    return moves


UI = KonkanCardsUI()
