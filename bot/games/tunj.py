"""Tunj in chat: a move in two presses (a source, then a target), a "Turn card" button, and a "Tunj!" control
the opponent has all through the mover's turn (rules/tunj.md, "Calling Tunj", [decision]).

The mover's buttons offer the engine's attempts: the legal moves plus those that neglect a mandatory priority.
Making one is allowed and is what the opponent's call answers, so the buttons do not mark them. Moves that break
a building rule are not offered; a player may still type one (`/m move H3 F1`) and the engine opens a claim.

Spotting the slip is the opponent's skill, so the chat does not spot it for them: the Tunj! control is there
whether or not a claim is open (a "call" button bound to no match version, on the waiting seat's rack and on
the table), and while a claim is open the chat shows the attempt like any move, still names the mover as the one
to move, and draws no claim banner (`disguise`). Once the claim is called or its window closes, the call or the
closed window says what the attempt broke. `expire` is never a button: the service makes it when the window
closes (forced_timeout_move). A call with no claim open is refused by the service, which then takes no call from
that seat before the mover's next move. A bot plays its turn a move at a time, each followed by a pause as long as
the claim window (`bot_pause`): a slip's open window then looks like the pause after any other bot move.

The picking state is the chosen source: `R`, `T`, `Hn`, or a run `Hnxk` (the run `Hn:k`; a colon would split the
button's action code).
"""

from __future__ import annotations

from typing import Any

from bot.games.base import GameUI, UIButton, rows
from bot.i18n import addressing_you, t
from bot.sheet import Sheet, signed
from renderers.tunj import RUN_BASE, SOURCE_INDEX, rule_codes

SUIT_MARK = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
CLAIM_SECONDS = 10  # the engine's default window when the match options do not say


def card_label(code: str | None) -> str:
    """`TH` -> `10♥`; None -> `—`."""
    if not code:
        return "—"
    return ("10" if code[0] == "T" else code[0]) + SUIT_MARK.get(code[1:], code[1:])


def split_move(move: str) -> tuple[str, str] | None:
    """(FROM, TO) of `move FROM TO`, FROM keeping a run's `:k`; None for turn/tunj/expire."""
    words = move.split()
    if len(words) == 3 and words[0] == "move":
        return words[1], words[2]
    return None


def pick_key(source: str) -> str:
    return source.replace(":", "x")


def source_of(pick: str | None) -> str | None:
    return pick.replace("x", ":") if pick else None


def _source_order(source: str) -> tuple[int, int]:
    pile, _, count = source.partition(":")
    return SOURCE_INDEX.get(pile, 99), int(count) if count.isdigit() else 1


def _target_order(target: str) -> tuple[int, int]:
    if target in ("OR", "OW"):
        return 2, ("OR", "OW").index(target)
    return {"F": 0, "H": 1}.get(target[0], 3), int(target[1:]) if target[1:].isdigit() else 0


def claim_open(view: dict[str, Any]) -> bool:
    return bool((view.get("claim") or {}).get("open"))


def claim_window(view: dict[str, Any], options: dict[str, Any]) -> float:
    """Seconds the opponent has to call Tunj!: the match's option, else the engine's own, else the default."""
    return float(options.get("claim_seconds") or view.get("claim_seconds") or CLAIM_SECONDS)


def _house(view: dict[str, Any], name: str) -> list[str]:
    return list((view.get("houses") or [[]] * 8)[int(name[1:]) - 1])


def _foundation(view: dict[str, Any], name: str) -> list[str]:
    return list((view.get("foundations") or [[]] * 8)[int(name[1:]) - 1])


def _rules_text(lang: str, broke: list[str]) -> str:
    return t(lang, "sep.clauses").join(t(lang, f"tunj.rule.{code}") for code in rule_codes(broke))


def _name(names: list[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"


class TunjUI(GameUI):
    game_id = "tunj"
    turn_seconds = 90  # a turn is a chain of moves; each move restarts the timer
    option_cycles = {"claim_seconds": (5, 10, 15, 20, 30)}

    # ---- buttons --------------------------------------------------------------------------------------------
    def offered_moves(self, game: Any, state: dict[str, Any], seat: int) -> list[str]:
        """The mover's attempts (legal moves and priority-neglecting ones); none during a claim, where the caller
        keeps the same standing Tunj! control as before it."""
        if state.get("claim") is not None:
            return []
        return game.attempts(state, seat)

    def standby_buttons(self, view: dict[str, Any], lang: str) -> list[list[UIButton]]:
        """Tunj! for every seat but the one shown moving (and on the table), until the match is over."""
        if view.get("over") or view.get("to_move") is None:
            return []
        seat = view.get("seat")
        if seat is not None and seat == self.shown_to_move(view, view.get("to_move")):
            return []
        return [[UIButton(t(lang, "tunj.btn.call"), "call")]]

    def disguise(self, view: dict[str, Any]) -> dict[str, Any]:
        """While a claim is open: the mover still to move, no claim, no claim event — the attempt looks like any
        move (its card simply has not moved yet)."""
        if not claim_open(view):
            return view
        claim = view["claim"]
        shown = dict(view)
        shown["to_move"] = claim.get("by")
        shown["phase"] = "play"
        shown["claim"] = {"open": False, "by": None, "caller": None, "attempt": None, "broke": [], "neglected": None}
        shown["events"] = [event for event in view.get("events") or [] if event.get("type") != "claim"]
        return shown

    def shown_to_move(self, view: dict[str, Any], to_move: int | None) -> int | None:
        if claim_open(view):
            return (view.get("claim") or {}).get("by")
        return to_move

    def is_call(self, text: str) -> bool:
        return " ".join(text.split()).lower() == "tunj"

    def pick_hint(self, pick: str, lang: str) -> str:
        """A card was picked up: what remains is where it goes."""
        return t(lang, "pick.where")

    def rack_buttons(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None) -> list[list[UIButton]]:
        if "tunj" in legal:
            return [[UIButton(t(lang, "tunj.btn.call"), "call")]]
        by_source: dict[str, list[tuple[str, str]]] = {}
        for move in legal:
            parts = split_move(move)
            if parts is not None:
                by_source.setdefault(parts[0], []).append((parts[1], move))
        turn = "turn" in legal
        chosen = source_of(pick)
        if chosen in by_source:
            return self._targets(view, by_source[chosen], lang, back=True)
        if len(by_source) == 1 and not turn:  # e.g. the turned card: its targets at once
            return self._targets(view, next(iter(by_source.values())), lang, back=False)
        sources = sorted(by_source, key=_source_order)
        buttons = [UIButton(self._source_label(view, source, lang), "pick", arg=pick_key(source)) for source in sources]
        keyboard = rows(buttons, 3)
        if turn:
            keyboard.append([UIButton(t(lang, "tunj.btn.turn"), "move", move="turn")])
        return keyboard

    def _targets(self, view: dict[str, Any], moves: list[tuple[str, str]], lang: str,
                 back: bool) -> list[list[UIButton]]:
        ordered = sorted(moves, key=lambda pair: _target_order(pair[0]))
        buttons = [UIButton(self._target_label(view, target, lang), "move", move=move) for target, move in ordered]
        keyboard = rows(buttons, 2)
        if back:
            keyboard.append([UIButton(t(lang, "btn.back"), "back")])
        return keyboard

    def _source_label(self, view: dict[str, Any], source: str, lang: str) -> str:
        seat = view.get("seat") or 0
        pile, _, count = source.partition(":")
        if pile == "R":
            return t(lang, "tunj.src.reserve", card=card_label((view.get("reserves") or [{}, {}])[seat].get("top")))
        if pile == "T":
            return t(lang, "tunj.src.turned", card=card_label(view.get("turned")))
        cards = _house(view, pile)
        if count:
            run = cards[-int(count):]
            return t(lang, "tunj.src.run", house=pile, n=count, cards=f"{card_label(run[0])}…{card_label(run[-1])}")
        return t(lang, "tunj.src.house", house=pile, card=card_label(cards[-1] if cards else None))

    def _target_label(self, view: dict[str, Any], target: str, lang: str) -> str:
        other = 1 - (view.get("seat") or 0)
        if target == "OR":
            return t(lang, "tunj.dst.or", card=card_label((view.get("reserves") or [{}, {}])[other].get("top")))
        if target == "OW":
            return t(lang, "tunj.dst.ow", card=card_label((view.get("waste_tops") or [None, None])[other]))
        pile = _foundation(view, target) if target[0] == "F" else _house(view, target)
        if not pile:
            return t(lang, "tunj.dst.empty", pile=target)
        return t(lang, "tunj.dst.pile", pile=target, card=card_label(pile[-1]))

    def selected(self, view: dict[str, Any], pick: str | None) -> tuple[int, ...]:
        """The picked source as the renderer's pile index (renderers.tunj.SOURCE_INDEX), plus a run's length."""
        source = source_of(pick)
        if source is None:
            return ()
        pile, _, count = source.partition(":")
        if pile not in SOURCE_INDEX:
            return ()
        return (SOURCE_INDEX[pile], RUN_BASE + int(count)) if count.isdigit() else (SOURCE_INDEX[pile],)

    # ---- timers ---------------------------------------------------------------------------------------------
    def timer_seconds(self, view: dict[str, Any], options: dict[str, Any], chat_timer: int | None) -> float | None:
        """An open claim gets the match's call window; otherwise the usual turn timer."""
        if claim_open(view):
            return claim_window(view, options)
        return super().timer_seconds(view, options, chat_timer)

    def forced_timeout_move(self, view: dict[str, Any]) -> str | None:
        return "expire" if claim_open(view) and not view.get("over") else None

    def bot_pause(self, view: dict[str, Any], options: dict[str, Any]) -> float | None:
        """After each bot move, as long as a claim window (rules/tunj.md, "Bots"): a slip's window is then
        indistinguishable from the wait after a clean move. The chat's turn timer plays no part (the terminal
        switches it off; the rules still time the window)."""
        return None if view.get("over") else claim_window(view, options)

    # ---- texts ----------------------------------------------------------------------------------------------
    def _pile_name(self, pile: str, lang: str) -> str:
        base, _, count = pile.partition(":")
        if count:
            return t(lang, "tunj.name.run", n=count, house=base)
        if base in ("R", "T", "OR", "OW"):
            return t(lang, f"tunj.name.{base}")
        return base

    def describe_move(self, move: str, lang: str, view: dict[str, Any] | None = None) -> str:
        """A move in words. Given the view right after it, an attempt that opened a claim says what it broke."""
        if view is not None:
            for event in view.get("events") or []:
                if event.get("type") == "claim" and event.get("attempt") == move:
                    return t(lang, "tunj.mv.attempt", move=self._attempt_text(move, lang),
                             rules=_rules_text(lang, event.get("broke") or []))
            for event in view.get("events") or []:
                if event.get("type") in ("called", "expired") and move.strip().lower() in ("tunj", "expire"):
                    key = "tunj.mv.called_broke" if event["type"] == "called" else "tunj.mv.expired_broke"
                    return t(lang, key, move=self._attempt_text(str(event.get("attempt") or ""), lang),
                             rules=_rules_text(lang, event.get("broke") or []))
        parts = split_move(move)
        if parts is None:
            word = move.strip().lower()
            return t(lang, f"tunj.mv.{word}") if word in ("turn", "tunj", "expire") else move
        return t(lang, "tunj.mv.move", src=self._pile_name(parts[0], lang), dst=self._pile_name(parts[1], lang))

    def notable(self, move: str, view: dict[str, Any] | None) -> bool:
        """Claims, calls and closed windows stay in the caption: they are what the other player must see."""
        if move.strip().lower() in ("tunj", "expire"):
            return True
        return any(event.get("type") == "claim" and event.get("attempt") == move
                   for event in (view or {}).get("events") or [])

    def _attempt_text(self, move: str, lang: str) -> str:
        """The attempted move as a noun phrase: "reserve → F1", "turning a card" — never your own verb ("moved …"),
        also inside a line addressed to you."""
        with addressing_you(False):
            return t(lang, "tunj.mv.turning") if move == "turn" else self.describe_move(move, lang)

    def describe_events(self, view: dict[str, Any], lang: str, names: list[str]) -> list[str]:
        """What the last move set off (a claim, a call, a closed window, a wasted card, the hand's end)."""
        lines = []
        for event in view.get("events") or []:
            kind, seat = event.get("type"), event.get("seat")
            name = _name(names, seat)
            if kind == "claim":
                lines.append(t(lang, "tunj.ev.claim", name=name, move=self._attempt_text(event["attempt"], lang),
                               rules=_rules_text(lang, event.get("broke") or []), caller=_name(names, 1 - seat)))
            elif kind == "called":
                lines.append(t(lang, "tunj.ev.called", name=name, offender=_name(names, 1 - seat),
                               move=self._attempt_text(event.get("attempt", ""), lang),
                               rules=_rules_text(lang, event.get("broke") or [])))
            elif kind == "expired":
                lines.append(t(lang, "tunj.ev.expired", name=name,
                               move=self._attempt_text(event.get("attempt", ""), lang),
                               rules=_rules_text(lang, event.get("broke") or [])))
            elif kind == "corrected":
                lines.append(t(lang, "tunj.ev.corrected", name=name, move=self.describe_move(event["move"], lang)))
            elif kind == "to_waste":
                lines.append(t(lang, "tunj.ev.to_waste", name=name, card=card_label(event.get("card"))))
            elif kind == "pass":
                lines.append(t(lang, "tunj.ev.pass", name=name))
            elif kind == "hand_over":
                winner = event.get("winner")
                points = (event.get("points") or [0, 0])
                if event.get("kind") == "deadlock":
                    lines.append(t(lang, "tunj.ev.deadlock", a=_name(names, 0), b=_name(names, 1),
                                   pa=points[0], pb=points[1]))
                else:
                    lines.append(t(lang, "tunj.ev.won", name=_name(names, winner), points=points[winner or 0]))
        return lines

    def _board(self, view: dict[str, Any], lang: str, names: list[str]) -> list[str]:
        reserves = view.get("reserves") or [{}, {}]
        lines = [t(lang, "tunj.board.round", n=view.get("round", 1))]
        for seat in (0, 1):
            lines.append(t(
                lang, "tunj.board.seat", name=_name(names, seat), reserve=reserves[seat].get("count", 0),
                top=card_label(reserves[seat].get("top")), hand=(view.get("hand_sizes") or [0, 0])[seat],
                waste=(view.get("waste_sizes") or [0, 0])[seat],
                wtop=card_label((view.get("waste_tops") or [None, None])[seat]),
                score=(view.get("scores") or [0, 0])[seat], burden=(view.get("burdens") or [0, 0])[seat]))
        if view.get("turned"):
            lines.append(t(lang, "tunj.board.turned", card=card_label(view["turned"])))
        houses = " · ".join(f"H{n}: {' '.join(card_label(c) for c in pile) or '—'}"
                            for n, pile in enumerate(view.get("houses") or [], start=1))
        foundations = " · ".join(f"F{n}: {card_label(pile[-1]) if pile else '—'}"
                                 for n, pile in enumerate(view.get("foundations") or [], start=1))
        lines += [t(lang, "tunj.board.houses", houses=houses), t(lang, "tunj.board.foundations", cards=foundations)]
        claim = view.get("claim") or {}
        if claim.get("open"):
            lines.append(t(lang, "tunj.board.claim", name=_name(names, claim.get("by")),
                           move=self._attempt_text(str(claim.get("attempt")), lang),
                           rules=_rules_text(lang, claim.get("broke") or []),
                           caller=_name(names, claim.get("caller"))))
        return lines

    def describe_table(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        """The public board in words (Tunj shows every card that is face up; hands are counts only)."""
        return "\n".join(self._board(view, lang, names) + self.describe_events(view, lang, names))

    def describe_rack(self, view: dict[str, Any], lang: str) -> str:
        seat = view.get("seat") or 0
        names = [t(lang, "tunj.you"), t(lang, "tunj.opponent")]
        if seat == 1:
            names.reverse()
        return "\n".join(self._board(view, lang, names))

    # ---- score sheets and recaps ----------------------------------------------------------------------------
    def round_sheet(self, detail: dict[str, Any], number: int, view: dict[str, Any], names: list[str],
                    sides: list[str], lang: str) -> Sheet:
        """Each seat's leftover hand, waste and reserve and the burden they make, then the formula with its
        numbers: 30 + the loser's hand + waste + 2 × reserve for a win, the difference of burdens in a deadlock
        (rules/tunj.md, "Scoring")."""
        parts = detail.get("parts") or [{}, {}]
        burdens = detail.get("burdens") or [0, 0]
        points = detail.get("points") or [0, 0]
        winner = detail.get("winner")
        rows = (
            (t(lang, "tunj.sheet.hand"), tuple(str(part.get("hand", 0)) for part in parts)),
            (t(lang, "tunj.sheet.waste"), tuple(str(part.get("waste", 0)) for part in parts)),
            (t(lang, "tunj.sheet.reserve"), tuple(str(part.get("reserve", 0)) for part in parts)),
            (t(lang, "tunj.sheet.burden"), tuple(str(b) for b in burdens)),
            (t(lang, "sheet.points"), tuple(signed(p) for p in points)),
            (t(lang, "sheet.total"), tuple(str(total) for total in detail.get("totals", []))),
        )
        if detail.get("kind") == "deadlock":
            title = t(lang, "tunj.sheet.deadlock", n=number)
            if winner is None:
                notes = (t(lang, "tunj.sheet.even", a=burdens[0]),)
            else:
                notes = (t(lang, "tunj.sheet.difference", name=_name(names, winner), high=burdens[1 - winner],
                           low=burdens[winner], points=points[winner]),)
        else:
            title = t(lang, "tunj.sheet.win", n=number, name=_name(names, winner))
            loser = parts[1 - (winner or 0)]
            notes = (t(lang, "tunj.sheet.formula", name=_name(names, winner), hand=loser.get("hand", 0),
                       waste=loser.get("waste", 0), reserve=loser.get("reserve", 0), points=points[winner or 0]),)
        return Sheet(title, tuple(sides[:2]), rows, notes, points=tuple(points))

    def fold(self, seat: int, moves: list[tuple[str, dict[str, Any]]], before: dict[str, Any] | None,
             lang: str) -> str:
        """A turn of many moves: how the mover's reserve went, the foundations it built (each to its new top),
        and the move that ended the run ("reserve emptied, F4 to 6♠, turned a card")."""
        last_move, after = moves[-1]
        parts: list[str] = []
        same_hand = before is not None and before.get("round") == after.get("round")
        if same_hand and before is not None:
            was = (before.get("reserves") or [{}, {}])[seat].get("count", 0)
            now = (after.get("reserves") or [{}, {}])[seat].get("count", 0)
            if was and not now:
                parts.append(t(lang, "tunj.fold.reserve_empty", was=was))
            elif was != now:
                parts.append(t(lang, "tunj.fold.reserve", was=was, now=now))
            tops = [pile[-1] if pile else None for pile in before.get("foundations") or []]
            built = [(n, pile[-1]) for n, pile in enumerate(after.get("foundations") or [], start=1)
                     if pile and (n > len(tops) or tops[n - 1] != pile[-1])]
            parts += [t(lang, "tunj.fold.built", f=f"F{n}", card=card_label(top)) for n, top in built]
        parts.append(self.describe_move(last_move, lang, after))
        return t(lang, "recap.sep").join(parts)


UI = TunjUI()
