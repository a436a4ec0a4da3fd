"""The multi-card picker shared by the rummy games (Canasta now, both Konkan games later).

A rummy turn lays several cards at once (`meld 7H 7S X`, `add 9C 2D to 3`), so a button per legal move would be
thousands of buttons. Instead each card of the rack gets a toggle, and the actions the current selection allows
are offered below them. The selection lives in the seat's private picking state (an opaque string the service
stores and hands back), encoded compactly so it fits a 64-byte callback code:

    <sort><fingerprint><selection>[.<staged meld>]...

- sort: "r" (the engine's order: by rank) or "s" (by suit); one press toggles it.
- fingerprint: two base-36 characters of a checksum of the hand, so a picking state left over from an earlier
  hand (e.g. after a timer played for the seat) is dropped instead of pointing at other cards.
- selection: the selected rack positions as a hexadecimal bitmask (positions index the view's "hand").
- staged melds: melds set aside for one move that lays several at once (an opening that needs several melds to
  reach the minimum: `meld A | B | C`), each as its positions in base 62.

Positions always index view["hand"] as the engine sends it; sorting only changes the order the buttons (and, with
`order`, the picture) show them in, and button numbers are position + 1 in either order, so a number names the
same card in the picture and on the buttons whatever the order.

Legality comes from the legal move list where the engine lists the move (single melds, additions, discards); an
action the list cannot settle (a multi-meld opening, a meld below the minimum) is built when the cards have a
meld's shape, and the service then keeps only the move buttons the engine accepts (`checked_buttons`), so a
button never offers a move that cannot be legal (a joker, or a card while a taken discard waits, is no discard).

A card of a set-aside meld takes itself out of it when pressed (`unstaged`): every control has its own code.
"""

from __future__ import annotations

import string
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.games.base import GameUI, UIButton, rows
from bot.i18n import t

MAX_PICK = 40  # the service's limit for a picking state
_B62 = string.digits + string.ascii_lowercase + string.ascii_uppercase
_B36 = string.digits + string.ascii_lowercase
CONFIRM = "~"  # the last part of an encoded picking state that waits for a confirmation
SORTS = ("r", "s", "a")  # by rank, by suit, arranged into melds (a game that offers it: Konkan tiles)


def fingerprint(hand: Sequence[str]) -> str:
    value = zlib.crc32(" ".join(hand).encode()) % (36 * 36)
    return _B36[value // 36] + _B36[value % 36]


@dataclass(frozen=True)
class Pick:
    """A decoded picking state: sort order, selected positions, staged melds (positions, disjoint)."""

    sort: str = "r"
    selected: frozenset[int] = field(default_factory=frozenset)
    staged: tuple[tuple[int, ...], ...] = ()
    confirm: bool = False  # a risky action was pressed once and waits for its confirmation (Konkan tiles)

    @property
    def staged_positions(self) -> frozenset[int]:
        return frozenset(p for group in self.staged for p in group)

    @property
    def empty(self) -> bool:
        return not self.selected and not self.staged

    def encode(self, hand: Sequence[str]) -> str:
        mask = sum(1 << p for p in self.selected)
        parts = [f"{self.sort}{fingerprint(hand)}{mask:x}"]
        parts += ["".join(_B62[p] for p in sorted(group)) for group in self.staged]
        if self.confirm:
            parts.append(CONFIRM)
        return ".".join(parts)

    @classmethod
    def decode(cls, text: str | None, hand: Sequence[str]) -> Pick:
        """The picking state for this hand; malformed or stale text gives an empty selection (keeping the sort)."""
        if not text or text[0] not in SORTS:
            return cls()
        sort = text[0]
        head, *groups = text.split(".")
        confirm = bool(groups) and groups[-1] == CONFIRM
        if confirm:
            groups = groups[:-1]
        if len(head) < 4 or head[1:3] != fingerprint(hand):
            return cls(sort=sort)
        try:
            mask = int(head[3:], 16)
            staged = tuple(tuple(sorted(_B62.index(ch) for ch in group)) for group in groups)
        except ValueError:
            return cls(sort=sort)
        n = len(hand)
        selected = frozenset(p for p in range(n) if mask >> p & 1)
        flat = [p for group in staged for p in group]
        if mask >> n or any(not group for group in staged) or len(flat) != len(set(flat)) or any(
            p >= n for p in flat
        ):
            return cls(sort=sort)
        return cls(sort=sort, selected=selected - set(flat), staged=staged, confirm=confirm)


class RummyUI(GameUI):
    """Toggles per card plus the actions the selection allows; games fill in their move strings and shapes."""

    toggles_per_row = 4
    suits = "SHDC"  # the suit order of the "by suit" sort
    checked_buttons = True  # the picker builds moves the legal list cannot settle: the service checks each

    def pick_hint(self, pick: str, lang: str) -> str:
        """Nothing: a press here ticks a card, sorts or stages a meld, and the redrawn rack shows the result."""
        return ""

    # ---- hooks a game provides --------------------------------------------------------------------------------
    def card_label(self, code: str) -> str:
        return code

    def cards_text(self, codes: Sequence[str]) -> str:
        return " ".join(self.card_label(code) for code in codes) or "—"

    def button_label(self, move: str, lang: str) -> str:
        """A whole move as one button (a forced use of the taken discard, a lay after committing): the cards
        themselves, which say more on a button than the move's sentence."""
        words = move.split()
        if words[0] == "meld":
            groups = " | ".join(self.cards_text(part.split()) for part in move[5:].split(" | "))
            return t(lang, "rummy.meld", cards=groups)
        if words[0] == "add":
            return t(lang, "rummy.add_cards", cards=self.cards_text(words[1:-2]), n=words[-1])
        return self.describe_move(move, lang)

    def card_sort_key(self, code: str) -> tuple:
        """The rank order (the engine's own hand order is assumed to be this already)."""
        return ()

    def suit_sort_key(self, code: str) -> tuple:
        """Suit first, then the game's rank order; wild cards last."""
        return (self.suits.index(code[-1]) if code[-1] in self.suits else len(self.suits), self.card_sort_key(code))

    def meld_move(self, groups: list[list[str]], view: dict[str, Any]) -> str:
        """NOTATION.md's `meld C C C | C C C`; the engine accepts any card order, a game may print canonically."""
        return "meld " + " | ".join(" ".join(group) for group in groups)

    def add_moves(self, cards: list[str], view: dict[str, Any]) -> list[tuple[int, str, bool]]:
        """(meld number, move, shape fits) for each table meld of the seat's side the cards might extend."""
        return []

    def discard_move(self, card: str) -> str:
        return f"discard {card}"

    def meld_shape(self, cards: list[str], view: dict[str, Any]) -> bool:
        """Could these cards be one meld at all (so the action is worth offering)?"""
        return len(cards) >= 3

    def may_stage(self, view: dict[str, Any]) -> bool:
        """Whether setting melds aside for one several-meld move is useful now (e.g. an opening minimum)."""
        return True

    def discard_button(self, view: dict[str, Any], lang: str, state: Pick, hand: Sequence[str],
                       card: str) -> UIButton | None:
        """The button discarding the one selected card (a game may ask for a confirmation first)."""
        return UIButton(t(lang, "rummy.discard", card=self.card_label(card)), "move", move=self.discard_move(card))

    def extra_actions(self, view: dict[str, Any], legal: list[str], lang: str, pick: Pick,
                      cards: list[str]) -> list[UIButton]:
        """Game-specific actions shown with the selection's (e.g. Canasta's `ask`)."""
        return []

    # ---- the picker ------------------------------------------------------------------------------------------
    def sort_toggle(self, sort: str) -> tuple[str, str]:
        """The order the sort button switches to, and its label key."""
        return ("s", "rummy.sort_suit") if sort == "r" else ("r", "rummy.sort_rank")

    def order(self, hand: Sequence[str], sort: str, view: dict[str, Any] | None = None) -> list[int]:
        """Rack positions in display order."""
        positions = list(range(len(hand)))
        if sort == "s":
            positions.sort(key=lambda p: self.suit_sort_key(hand[p]))
        return positions

    def pick_of(self, view: dict[str, Any], pick: str | None) -> Pick:
        return Pick.decode(pick, view.get("hand") or [])

    def rack_view(self, view: dict[str, Any], pick: str | None) -> dict[str, Any]:
        """The picture shows the cards in the chosen sort order (the renderer reads `order`)."""
        hand = view.get("hand") or []
        return {**view, "order": self.order(hand, self.pick_of(view, pick).sort, view)}

    def pick_after_move(self, pick: str | None) -> str | None:
        """The sort order stays (its letter alone decodes to an empty selection in that order)."""
        return pick[:1] if pick and pick[0] in SORTS else None

    def selected(self, view: dict[str, Any], pick: str | None) -> tuple[int, ...]:
        """Selected and staged cards are both marked in the rack picture."""
        state = self.pick_of(view, pick)
        return tuple(sorted(state.selected | state.staged_positions))

    @staticmethod
    def unstaged(state: Pick, position: int) -> Pick:
        """Pressing a card of a set-aside meld takes that card out: its meld goes back to the selection without
        it. Each card of the meld thus leads to a different picking state, so each keeps a control of its own
        (Discord keeps only the first component of a custom_id, and a shared code hid the meld's other cards)."""
        group = next(g for g in state.staged if position in g)
        return replace(state, staged=tuple(g for g in state.staged if g != group),
                       selected=state.selected | (set(group) - {position}))

    def _pick_button(self, label: str, state: Pick, hand: Sequence[str]) -> UIButton | None:
        code = state.encode(hand)
        return UIButton(label, "pick", code) if len(code) <= MAX_PICK else None

    def picker_buttons(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None,
                       lead: list[list[UIButton]] | None = None) -> list[list[UIButton]]:
        """Card toggles, then the actions for the current selection; `lead`: rows the game puts first."""
        hand: list[str] = list(view.get("hand") or [])
        armed = self.pick_of(view, pick)
        state = replace(armed, confirm=False)  # any other press drops a pending confirmation
        staged = state.staged_positions
        toggles: list[UIButton] = []
        for position in self.order(hand, state.sort, view):
            label = f"{position + 1}. {self.card_label(hand[position])}"
            if position in staged:
                button = self._pick_button(f"📌 {label}", self.unstaged(state, position), hand)
            elif position in state.selected:
                button = self._pick_button(f"✓ {label}", replace(state, selected=state.selected - {position}), hand)
            else:
                button = self._pick_button(label, replace(state, selected=state.selected | {position}), hand)
            if button is not None:
                toggles.append(button)
        cards = [hand[p] for p in sorted(state.selected)]
        actions = self._actions(view, legal, lang, armed, hand, cards)
        out = list(lead or [])
        out += rows(toggles, self.toggles_per_row)
        out += rows(actions, 2)
        tools = []
        cleared = replace(state, selected=frozenset(), staged=()).encode(hand)
        if not state.empty and cleared not in {button.arg for button in toggles}:  # one ticked card: its toggle clears
            tools.append(UIButton(t(lang, "rummy.clear"), "pick", cleared))
        sort, key = self.sort_toggle(state.sort)
        flipped = self._pick_button(t(lang, key), replace(state, sort=sort), hand)
        if flipped is not None:
            tools.append(flipped)
        out.append(tools)
        return [row for row in out if row]

    def _actions(self, view: dict[str, Any], legal: list[str], lang: str, state: Pick, hand: list[str],
                 cards: list[str]) -> list[UIButton]:
        legal_set = set(legal)
        label = self.card_label
        out: list[UIButton] = []
        groups = [[hand[p] for p in group] for group in state.staged]
        if cards and not groups and self.meld_shape(cards, view):
            move = self.meld_move([cards], view)
            out.append(UIButton(t(lang, "rummy.meld", cards=" ".join(label(c) for c in cards)), "move", move=move))
        if cards and self.meld_shape(cards, view) and (groups or self.may_stage(view)):
            staged = replace(state, confirm=False, selected=frozenset(),
                             staged=(*state.staged, tuple(sorted(state.selected))))
            button = self._pick_button(t(lang, "rummy.stage"), staged, hand)
            if button is not None:
                out.append(button)
        if groups:
            every = groups + ([cards] if cards and self.meld_shape(cards, view) else [])
            out.append(UIButton(t(lang, "rummy.lay_all", n=len(every)), "move", move=self.meld_move(every, view)))
        if cards and not groups:
            for number, move, fits in self.add_moves(cards, view):
                if move in legal_set or fits:
                    out.append(UIButton(t(lang, "rummy.add", n=number), "move", move=move))
        if len(cards) == 1 and not groups and self.discard_move(cards[0]) in legal_set:
            button = self.discard_button(view, lang, state, hand, cards[0])
            if button is not None:
                out.append(button)
        out += self.extra_actions(view, legal, lang, state, cards)
        return out


def labelled(moves: Sequence[str], describe: Callable[[str], str]) -> list[UIButton]:
    """Move buttons labelled by a describer (direct choices shown beside the picker)."""
    return [UIButton(describe(move), "move", move=move) for move in moves]
