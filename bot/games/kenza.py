"""Kenza / Rabaeen in chat: a button per card; a card with several capture choices opens a second step."""

from __future__ import annotations

from typing import Any

from bot.games.base import GameUI, UIButton, rows
from bot.i18n import t, tn
from bot.sheet import Sheet, signed

SUIT_MARK = {"O": "🪙", "C": "🏆", "E": "⚔️", "B": "🪵"}


def card_label(code: str) -> str:
    return f"{code[:-1]}{SUIT_MARK.get(code[-1], code[-1])}"


class KenzaUI(GameUI):
    game_id = "kenza"
    turn_seconds = 60

    def rack_buttons(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None) -> list[list[UIButton]]:
        hand: list[str] = view.get("hand", [])
        by_card: dict[str, list[str]] = {}
        for move in legal:
            by_card.setdefault(move.split()[1], []).append(move)
        if pick is not None and pick.isdigit() and int(pick) < len(hand) and len(by_card.get(hand[int(pick)], [])) > 1:
            choices = [UIButton(self._take_label(move, lang), "move", move=move) for move in by_card[hand[int(pick)]]]
            return rows(choices, 2) + [[UIButton(t(lang, "btn.back"), "back")]]
        buttons = []
        for position, card in enumerate(hand):
            moves = by_card.get(card, [])
            label = f"{position + 1}. {card_label(card)}"
            if len(moves) == 1:
                buttons.append(UIButton(label, "move", move=moves[0]))
            elif moves:
                buttons.append(UIButton(label + " …", "pick", str(position)))
        return rows(buttons, 3)

    def _take_label(self, move: str, lang: str) -> str:
        taken = move.split()[3:]
        return t(lang, "kenza.take", cards=" + ".join(card_label(code) for code in taken))

    def move_label(self, move: str, lang: str) -> str:
        return self.describe_move(move, lang)

    def turn_prompt(self, view: dict[str, Any], lang: str) -> str:
        return t(lang, "rack.your_turn", game=t(lang, "game.kenza"))

    def describe_move(self, move: str, lang: str, view: dict[str, Any] | None = None) -> str:
        words = move.split()
        card, taken = words[1], words[3:]
        if taken:
            return t(lang, "kenza.captured", card=card_label(card), cards=" ".join(card_label(c) for c in taken))
        return t(lang, "kenza.laid", card=card_label(card))

    def describe_rack(self, view: dict[str, Any], lang: str) -> str:
        hand = view.get("hand", [])
        cards = "  ".join(f"{i + 1}) {card_label(code)}" for i, code in enumerate(hand)) or "—"
        return t(lang, "kenza.rack", cards=cards)

    def describe_table(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        table = " ".join(card_label(code) for code in view["table"]) or "—"
        piles = t(lang, "sep.list").join(
            t(lang, "kenza.pile", name=names[s], cards=view["captured_counts"][s], sweeps=view["sweeps"][s],
              hand=view["hand_sizes"][s])
            for s in range(view["players"])
        )
        return "\n".join([
            t(lang, "kenza.table", cards=table, stock=view["stock_size"], round=view["round"]),
            piles,
        ])

    def round_sheet(self, detail: dict[str, Any], number: int, view: dict[str, Any], names: list[str],
                    sides: list[str], lang: str) -> Sheet:
        """The cards each side captured (gold by its value, any other card 1 point), its sweeps, and the table
        cards left at the end, which went to the last capturer (rules/kenza.md, "Scoring per deal")."""
        capturer = detail.get("last_capturer")
        if detail.get("leftover") and capturer is not None:
            # The counts go in already counted ("6 cards", "6 أوراق"): Arabic's noun changes with the number.
            title = t(lang, "kenza.sheet.leftover", n=number, cards=tn(lang, "count.cards", detail["leftover"]),
                      worth=tn(lang, "count.points", detail.get("leftover_points", 0)),
                      name=names[capturer] if capturer < len(names) else "?")
        else:
            title = t(lang, "kenza.sheet.clear", n=number)
        parts = detail.get("sides") or []
        rows = (
            (t(lang, "kenza.sheet.cards"), tuple(str(part.get("cards", 0)) for part in parts)),
            (t(lang, "kenza.sheet.gold"), tuple(str(part.get("gold", 0)) for part in parts)),
            (t(lang, "kenza.sheet.others"), tuple(str(part.get("others", 0)) for part in parts)),
            (t(lang, "kenza.sheet.sweeps"), tuple(str(part.get("sweeps", 0)) for part in parts)),
            (t(lang, "sheet.points"), tuple(signed(p) for p in detail.get("points", []))),
            (t(lang, "sheet.total"), tuple(str(total) for total in detail.get("totals", []))),
        )
        return Sheet(title, tuple(sides[:len(parts)]), rows, points=tuple(detail.get("points", [])))


UI = KenzaUI()
