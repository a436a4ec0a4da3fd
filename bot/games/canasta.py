"""Canasta in chat: the rummy picker for melds, plus the draw step, a taken pile's top card, and asking to go out.

Phases follow the engine's view: "draw" (draw / take the pile / pass once the stock is gone: one button each,
the take button saying which hand cards would meld the top card), "play" (the picker of bot/games/rummy.py; after
a take, the moves that meld the top card are also offered directly, and the top card joins any meld or addition
built with the picker), and "answer" (the partner's Yes / No to "may I go out?", which the engine asks of the
partner as the seat to move).
"""

from __future__ import annotations

from typing import Any

from bot.games.base import UIButton, rows
from bot.games.rummy import Pick, RummyUI
from bot.i18n import t
from bot.sheet import Sheet, signed
from engine.canasta.cards import card_key, is_wild, rank_key, sort_cards

SUIT_MARK = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_TEXT = {"T": "10"}
DIRECT_LIMIT = 6  # forced moves after a take shown as their own buttons
GO_OUT_LIMIT = 3  # concealed going-out melds shown as their own buttons


def card_label(code: str) -> str:
    if code == "X":
        return "🃏"
    return f"{RANK_TEXT.get(code[0], code[0])}{SUIT_MARK.get(code[1], code[1])}"


def cards_text(cards: list[str]) -> str:
    return " ".join(card_label(code) for code in cards) or "—"


def rank_text(rank: str) -> str:
    return RANK_TEXT.get(rank, rank)


def _naturals(cards: list[str]) -> list[str]:
    return [card for card in cards if not is_wild(card)]


def _group_rank(cards: list[str]) -> str | None:
    ranks = {card[0] for card in _naturals(cards)}
    return ranks.pop() if len(ranks) == 1 else None


def meld_text(groups: list[list[str]]) -> str:
    """A meld move in the engine's canonical print (cards in hand order, groups by rank)."""
    ordered = sorted((sort_cards(group) for group in groups),
                     key=lambda group: rank_key(r) if (r := _group_rank(group)) else 99)
    return "meld " + " | ".join(" ".join(group) for group in ordered)


def add_text(cards: list[str], number: int) -> str:
    return f"add {' '.join(sort_cards(cards))} to {number}"


class CanastaUI(RummyUI):
    game_id = "canasta"
    turn_seconds = 90  # a turn is several presses (draw, melds, discard); each move restarts the timer

    # ---- rummy hooks ------------------------------------------------------------------------------------------
    def card_label(self, code: str) -> str:
        return card_label(code)

    def card_sort_key(self, code: str) -> tuple:
        return card_key(code)

    def suit_sort_key(self, code: str) -> tuple:
        if is_wild(code):
            return (len(self.suits), card_key(code))
        return (self.suits.index(code[1]), card_key(code))

    def _with_top(self, groups: list[list[str]], view: dict[str, Any]) -> list[list[str]]:
        """Put a taken pile's top card into the group of its rank (else the last group, whose meld it starts)."""
        top = view.get("must_use")
        if not top or not groups:
            return groups
        groups = [list(group) for group in groups]
        target = next((g for g in groups if _group_rank(g) == top[0]), None)
        if target is None:
            target = next((g for g in groups if _group_rank(g) is None), groups[-1])
        target.append(top)
        return groups

    def meld_move(self, groups: list[list[str]], view: dict[str, Any]) -> str:
        return meld_text(self._with_top(groups, view))

    def add_moves(self, cards: list[str], view: dict[str, Any]) -> list[tuple[int, str, bool]]:
        full = self._with_top([cards], view)[0]
        out = []
        for meld in view.get("melds", []):
            if meld["team"] != view.get("team"):
                continue
            naturals = _naturals(full)
            fits = bool(naturals) and all(card[0] == meld["rank"] for card in naturals)
            out.append((meld["number"], add_text(full, meld["number"]), fits))
        return out

    def meld_shape(self, cards: list[str], view: dict[str, Any]) -> bool:
        full = self._with_top([cards], view)[0]
        naturals = _naturals(full)
        return len(full) >= 3 and len(naturals) >= 2 and _group_rank(full) is not None

    def may_stage(self, view: dict[str, Any]) -> bool:
        """Only an opening needs several melds in one move; once open, melds are laid one by one."""
        team = view.get("team")
        return team is not None and not view.get("opened", [False, False])[team]

    def extra_actions(self, view: dict[str, Any], legal: list[str], lang: str, pick: Pick,
                      cards: list[str]) -> list[UIButton]:
        return [UIButton(t(lang, "canasta.ask"), "move", move="ask")] if "ask" in legal else []

    # ---- buttons ----------------------------------------------------------------------------------------------
    def rack_buttons(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None) -> list[list[UIButton]]:
        phase = view.get("phase")
        if phase == "answer":
            return [[UIButton(t(lang, "canasta.answer_yes"), "move", move="answer yes")],
                    [UIButton(t(lang, "canasta.answer_no"), "move", move="answer no")]]
        if phase == "draw":
            return rows([self._draw_button(move, view, lang) for move in legal], 1)
        lead: list[list[UIButton]] = []
        top = view.get("must_use")
        if top and len(legal) <= DIRECT_LIMIT:
            lead = [[UIButton(self.button_label(move, lang), "move", move=move)] for move in legal]
        elif top:
            # The picker adds selected hand cards; the taken top card alone onto a meld needs its own button.
            alone = [move for move in legal if move.startswith("add ") and move.split()[1:-2] == [top]]
            lead = [[UIButton(self.button_label(move, lang), "move", move=move)] for move in alone]
        else:
            lead = [[UIButton(self.concealed_label(move, lang), "move", move=move)]
                    for move in self.concealed_outs(view, legal)]
        return self.picker_buttons(view, legal, lang, pick, lead=lead)

    def concealed_outs(self, view: dict[str, Any], legal: list[str]) -> list[str]:
        """The engine's melds that lay a not yet opened side's whole hand (all but the final discard) at once.

        Building one with the picker takes a press per card and a set-aside per meld, so each such legal move
        also gets a button of its own; after a stock draw it needs no minimum, which the picker cannot tell.
        """
        team = view.get("team")
        if team is None or view.get("opened", [True, True])[team] or view.get("must_use"):
            return []
        size = len(view.get("hand") or [])
        outs = [move for move in legal if move.startswith("meld ")
                and size - len([w for w in move.split()[1:] if w != "|"]) <= 1]
        return outs[:GO_OUT_LIMIT]

    def concealed_label(self, move: str, lang: str) -> str:
        groups = " | ".join(cards_text(part.split()) for part in move[5:].split(" | "))
        return t(lang, "canasta.go_out_concealed", melds=groups)

    def _draw_button(self, move: str, view: dict[str, Any], lang: str) -> UIButton:
        if move == "draw":
            return UIButton(t(lang, "canasta.draw", n=view.get("stock_size", 0)), "move", move="draw")
        if move == "pass":
            return UIButton(t(lang, "canasta.pass"), "move", move="pass")
        return UIButton(self.take_label(view, lang), "move", move=move)

    def take_label(self, view: dict[str, Any], lang: str) -> str:
        """Which hand cards would meld the top card: the same rule the engine applies, read from the view."""
        top = view.get("discard_top") or "?"
        size = view.get("pile_size", 0)
        team = view.get("team")
        hand: list[str] = view.get("hand") or []
        frozen = bool(view.get("frozen_for", [True, True])[team]) if team is not None else True
        pair = [card for card in hand if card[0] == top[0] and not is_wild(card)]
        own = next((m for m in view.get("melds", []) if m["team"] == team and m["rank"] == top[0]), None)
        if own is not None and not frozen:
            return t(lang, "canasta.take_onto", top=card_label(top), n=size, meld=own["number"])
        if len(pair) >= 2:
            return t(lang, "canasta.take_with", top=card_label(top), n=size, cards=cards_text(pair[:2]))
        wild = next((card for card in hand if is_wild(card)), None)
        if pair and wild and not frozen:
            return t(lang, "canasta.take_with", top=card_label(top), n=size, cards=cards_text([pair[0], wild]))
        return t(lang, "canasta.take", top=card_label(top), n=size)

    def move_label(self, move: str, lang: str) -> str:
        return self.button_label(move, lang)

    # ---- texts ------------------------------------------------------------------------------------------------
    def turn_prompt(self, view: dict[str, Any], lang: str) -> str:
        """The line over the rack: what this step of the turn asks for."""
        if view.get("phase") == "answer":
            return t(lang, "canasta.prompt.answer")
        if view.get("phase") == "draw":
            return t(lang, "canasta.prompt.draw")
        if view.get("must_use"):
            return t(lang, "canasta.prompt.must_use", top=card_label(view["must_use"]))
        return t(lang, "canasta.prompt.play")

    def describe_move(self, move: str, lang: str, view: dict[str, Any] | None = None) -> str:
        words = move.split()
        if not words:
            return move
        verb = words[0]
        if verb == "meld":
            melds = " · ".join(cards_text(part.split()) for part in move[5:].split(" | "))
            return t(lang, "canasta.m.meld", melds=melds)
        if verb == "add" and len(words) >= 4:
            return t(lang, "canasta.m.add", cards=cards_text(words[1:-2]), n=words[-1])
        if verb == "discard" and len(words) == 2:
            return t(lang, "canasta.m.discard", card=card_label(words[1]))
        if verb == "answer" and len(words) == 2 and words[1] in ("yes", "no"):
            return t(lang, f"canasta.m.answer_{words[1]}")
        if verb in ("draw", "take", "pass", "ask") and len(words) == 1:
            return t(lang, f"canasta.m.{verb}")
        return move

    def describe_rack(self, view: dict[str, Any], lang: str) -> str:
        hand: list[str] = view.get("hand") or []
        cards = "  ".join(f"{i + 1}) {card_label(code)}" for i, code in enumerate(hand)) or "—"
        lines = [t(lang, "canasta.rack", n=len(hand), cards=cards)]
        seat, team = view.get("seat"), view.get("team")
        if view.get("must_use") and view.get("turn") == seat:
            taken = view.get("taken_cards") or []
            if taken:
                lines.append(t(lang, "canasta.rack_pending", top=card_label(view["must_use"]), n=len(taken),
                               cards=cards_text(taken)))
            else:  # a pile of one card: nothing else joins the hand
                lines.append(t(lang, "canasta.prompt.must_use", top=card_label(view["must_use"])))
        if view.get("phase") == "answer" and view.get("to_move") == seat:
            lines.append(t(lang, "canasta.rack_asked"))
        elif view.get("ask") in ("yes", "no") and view.get("turn") == seat:
            lines.append(t(lang, f"canasta.rack_{view['ask']}"))
        if team is not None:
            own = [m for m in view.get("melds", []) if m["team"] == team]
            melds = t(lang, "sep.clauses").join(self._meld_line(m, lang) for m in own) or "—"
            lines.append(t(lang, "canasta.own_melds", melds=melds))
            if not view.get("opened", [True, True])[team]:
                lines.append(t(lang, "canasta.need_open", n=view.get("min_meld", [0, 0])[team]))
        return "\n".join(lines)

    def _meld_line(self, meld: dict[str, Any], lang: str) -> str:
        kind = meld.get("canasta")
        marker = t(lang, f"canasta.{kind}") if kind in ("natural", "mixed") else ""
        return t(lang, "canasta.meld", n=meld["number"], rank=rank_text(meld["rank"]), cards=cards_text(meld["cards"]),
                 count=len(meld["cards"]), kind=marker)

    def side_names(self, view: dict[str, Any], names: list[str], lang: str) -> list[str]:
        """Team names at four players, each player's name at two (the view lists a one-seat team per player)."""
        teams = view.get("teams") or [[0], [1]]
        out = []
        for seats in teams:
            members = [names[s] if s < len(names) else "?" for s in seats]
            out.append(t(lang, "team", a=members[0], b=members[1]) if len(members) == 2 else members[0])
        return out

    def describe_table(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        stock = view.get("stock_size", 0)
        top = view.get("discard_top")
        if top:
            state = t(lang, "canasta.frozen") if view.get("frozen") else ""
            if view.get("pile_blocked") and not view.get("frozen"):
                state = t(lang, "canasta.blocked")
            lines = [t(lang, "canasta.table_pile", stock=stock, top=card_label(top), n=view.get("pile_size", 0),
                       state=state)]
        else:
            lines = [t(lang, "canasta.pile_empty", stock=stock)]
        sides = self.side_names(view, names, lang)
        teams = view.get("teams") or [[0], [1]]
        hands = view.get("hand_sizes", [])
        for team, seats in enumerate(teams):
            opened = view.get("opened", [False, False])[team]
            status = t(lang, "canasta.opened") if opened else t(lang, "canasta.needs",
                                                                  n=view.get("min_meld", [0, 0])[team])
            held = t(lang, "sep.list").join(
                f"{names[s] if s < len(names) else '?'} {hands[s] if s < len(hands) else '?'}" for s in seats)
            red = view.get("team_red3s", [[], []])[team]
            lines.append(t(lang, "canasta.side", side=sides[team], n=view.get("scores", [0, 0])[team],
                           status=status, red3s=cards_text(red), hands=held))
            melds = [m for m in view.get("melds", []) if m["team"] == team]
            melds.sort(key=lambda m: rank_key(m["rank"]))
            lines += ["  " + self._meld_line(m, lang) for m in melds] or ["  " + t(lang, "canasta.no_melds")]
        turn = view.get("turn")
        if view.get("phase") == "answer" and turn is not None and turn < len(names):
            lines.append(t(lang, "canasta.asking", name=names[turn]))
        elif view.get("must_use") and turn is not None and turn < len(names):
            lines.append(t(lang, "canasta.took_pile", name=names[turn], top=card_label(view["must_use"])))
        return "\n".join(lines)

    def round_sheet(self, detail: dict[str, Any], number: int, view: dict[str, Any], names: list[str],
                    sides: list[str], lang: str) -> Sheet:
        """Who went out (concealed or not) or the stock ran out; per team every item of rules/canasta.md's
        "Scoring" with what it counts, the hand's points and the running total."""
        went_out = detail.get("went_out")
        if went_out is None:
            title = t(lang, "canasta.sheet.stock", n=number)
        else:
            key = "canasta.sheet.concealed" if detail.get("concealed") else "canasta.sheet.out"
            title = t(lang, key, n=number, name=names[went_out] if went_out < len(names) else "?")
        items = detail.get("detail") or [{}, {}]
        counts = detail.get("counts") or [{}, {}]

        def row(key: str, cell: Any) -> tuple[str, tuple[str, ...]]:
            return t(lang, f"canasta.sheet.{key}"), tuple(cell(items[side], counts[side]) for side in (0, 1))

        def gives(count: int, points: int) -> str:
            return t(lang, "sheet.count_points", count=count, points=signed(points))

        rows = (
            row("natural", lambda item, count: gives(count.get("natural", 0), 500 * count.get("natural", 0))),
            row("mixed", lambda item, count: gives(count.get("mixed", 0), 300 * count.get("mixed", 0))),
            row("red3s", lambda item, count: gives(count.get("red3s", 0), item.get("red3s", 0))),
            row("going_out", lambda item, count: signed(item.get("going_out", 0))),
            row("melded", lambda item, count: gives(count.get("melded", 0), item.get("melded", 0))),
            row("left", lambda item, count: gives(count.get("left", 0), item.get("in_hand", 0))),
            (t(lang, "sheet.points"), tuple(signed(p) for p in detail.get("points", [0, 0]))),
            (t(lang, "sheet.total"), tuple(str(total) for total in detail.get("totals", []))),
        )
        return Sheet(title, tuple(sides[:2]), rows, points=tuple(detail.get("points", [0, 0])))

    def score_line(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        sides = self.side_names(view, names, lang)
        scores = view.get("scores", [])
        return " · ".join(f"{name}: {score}" for name, score in zip(sides, scores, strict=False))


UI = CanastaUI()
