"""Turns match data into platform-neutral messages: the lobby, the table, a seat's rack, scores.

Pictures come from `renderers`; everything here is text and keyboards as data. Only a seat's own view ever goes
into its rack; the table message is built from the public view (seat=None).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import engine
from bot import callbacks, summary
from bot.coin_tables import COIN_GAMES
from bot.games import ui_for
from bot.games.base import GameUI, UIButton, side_names
from bot.i18n import You, addressing_you, game_name, round_name, t, tn
from bot.messages import Button, Keyboard, OutMessage
from engine.errors import IllegalMove
from renderers.picture import Picture
from storage.models import Match, Seat

LOBBY_LEVELS = ("normal", "expert", "random")  # the add-bot buttons, in the order shown


def seat_names(seats: list[Seat], lang: str) -> list[str]:
    """A name per seat in `lang`. A human with no name is the terminal's player, who reads every message: "You",
    as a `You` so that sentences about them speak to them (second person)."""
    return [
        (seat.display_name or You(t(lang, "console.you"))) if seat.is_human
        else t(lang, "bot.name", n=seat.seat + 1, level=t(lang, f"level.{seat.bot_level}"))
        for seat in seats
    ]


def describe_move(game_id: str, move: str, lang: str, view: dict[str, Any] | None, by: str) -> str:
    """A move in words; in the second person when the player who made it (`by`) is the reader."""
    with addressing_you(isinstance(by, You)):
        return ui_for(game_id).describe_move(move, lang, view)


def option_text(game_id: str, options: dict[str, Any], lang: str) -> str:
    """`opt.NAME.VALUE` when the catalog names that value, else `opt.NAME` with {value}; unset (None) skipped."""
    parts = []
    for name, value in ui_for(game_id).shown_options(options).items():
        if value is None:
            continue
        if _has(lang, f"opt.{name}.{value}"):
            parts.append(t(lang, f"opt.{name}.{value}"))
        elif _has(lang, f"opt.{name}"):
            parts.append(t(lang, f"opt.{name}", value=value))
        else:
            parts.append(f"{value}")
    return " · ".join(parts)


def _has(lang: str, key: str) -> bool:
    return t(lang, key) != key


def effective_options(match: Match, seat_count: int) -> dict[str, Any]:
    """The options a table would start with at this many seats: the creator's choices plus the game's defaults."""
    game = engine.get(match.game)
    players = min(max(seat_count, game.info.min_players), game.info.max_players)
    try:
        return game.check_options(players, match.options)
    except ValueError:  # e.g. a variant chosen for another number of players: show the choices as they are
        return {**{name: spec.default for name, spec in game.info.options.items()}, **match.options}


def game_picker(lang: str, games: list[str], tournaments: Sequence[tuple[int, str]] = ()) -> OutMessage:
    """The games to open a table for; tournaments taking registrations, (id, game), come first ("pinned")."""
    pinned = [[Button(t(lang, "tour.btn.pinned", id=number, game=game_name(lang, game_id)),
                      callbacks.encode("a", number))] for number, game_id in tournaments]
    buttons = [[Button(game_name(lang, game_id), callbacks.encode("n", 0, game_id))] for game_id in games]
    return OutMessage(t(lang, "new.pick"), keyboard=pinned + buttons)


def _seats_line(lang: str, count: int, least: int, most: int) -> str:
    """How many sit and how many the game takes: "2 of 2" for a game of one size (Tunj), never "needs 2–2"."""
    if least == most:
        return t(lang, "lobby.seats_fixed", count=count, max=most)
    return t(lang, "lobby.seats", count=count, min=least, max=most)


def lobby(match: Match, seats: list[Seat], lang: str, ready: frozenset[int] | None = None, *,
          invite: str | None = None) -> OutMessage:
    """The lobby; `ready` (platforms that push cards to private chats): the seats whose private chat is open,
    marked so everyone sees who still has to press the link."""
    game = engine.get(match.game)
    names = seat_names(seats, lang)
    if ready is not None and match.status == "lobby":
        names = [f"{name} {t(lang, 'lobby.ready_mark')}" if seat.is_human and seat.seat in ready else name
                 for seat, name in zip(seats, names, strict=True)]
    lines = [
        t(lang, "lobby.title", game=game_name(lang, match.game)),
        option_text(match.game, effective_options(match, len(seats)), lang),
        _seats_line(lang, len(seats), game.info.min_players, game.info.max_players),
    ]
    if match.game in COIN_GAMES:
        lines.insert(2, tn(lang, "coins.lobby_stake", match.stake) if match.stake else t(lang, "coins.lobby_free"))
    if match.rated:  # a bot seat makes a rated table an unrated one (storage rates only all-human tables)
        lines.insert(2, t(lang, "ladder.lobby_rated") if all(seat.is_human for seat in seats)
                     else t(lang, "ladder.lobby_unrated_bots"))
    lines += [f"{index + 1}. {name}" for index, name in enumerate(names)]
    if match.status == "cancelled":
        lines.append(t(lang, "lobby.cancelled"))
        return OutMessage("\n".join(lines))
    if match.status != "lobby":
        lines.append(t(lang, "lobby.started"))
        return OutMessage("\n".join(lines))
    keyboard: Keyboard = []
    ui = ui_for(match.game)
    effective = effective_options(match, len(seats))
    option_row = [
        Button(t(lang, f"opt.name.{name}") + " ▸", callbacks.encode("o", match.id, name))
        for name, spec in game.info.options.items()
        if len(ui.option_values(name, spec, effective)) > 1
    ]
    if match.game in COIN_GAMES:
        option_row.append(Button(t(lang, "coins.stake_button", stake=match.stake) + " ▸",
                                 callbacks.encode("o", match.id, "stake")))
    if option_row:
        keyboard.append(option_row)
    keyboard.append([
        Button(t(lang, "btn.join"), callbacks.encode("j", match.id)),
        Button(t(lang, "btn.leave"), callbacks.encode("l", match.id)),
    ])
    if ui.bots_allowed(match.options) and not match.stake:  # bots sit only at free tables
        # The levels every game has (engine.bots.LEVELS), the usual one first; a game's extra level (Tunj's strong)
        # stays reachable by command and in the terminal.
        keyboard.append([
            Button(t(lang, "btn.add_bot", level=t(lang, f"level.{level}")), callbacks.encode("b", match.id, level))
            for level in LOBBY_LEVELS
        ])
        keyboard.append([Button(t(lang, "btn.remove_bot"), callbacks.encode("r", match.id))])
    if invite:
        keyboard.append([Button(t(lang, "btn.invite"), url=invite)])
    keyboard.append([
        Button(t(lang, "btn.start"), callbacks.encode("s", match.id)),
        Button(t(lang, "btn.cancel"), callbacks.encode("x", match.id)),
    ])
    return OutMessage("\n".join(lines), keyboard=keyboard)


Recent = summary.Log  # the moves the table's recap may show


def shown_turn(match: Match, state: dict[str, Any]) -> int | None:
    """The seat the chat names as moving (a hidden Tunj claim keeps naming the mover)."""
    game = engine.get(match.game)
    ui = ui_for(match.game)
    to_move = game.to_move(state)
    if type(ui).shown_to_move is GameUI.shown_to_move:  # the seat to move itself: no view to build (several a move)
        return to_move
    return ui.shown_to_move(game.view(state, None), to_move)


def caption(match: Match, state: dict[str, Any], seats: list[Seat], lang: str, recent: Recent) -> str:
    """The table's caption: the round, every move since the seat to move last played (bot.summary.recap), the
    turn and the scores; within a photo caption's length."""
    game = engine.get(match.game)
    ui = ui_for(match.game)
    view = game.view(state, None)
    hiding = ui.disguise(view) is not view  # a claim still open: its attempt reads like any move
    names = seat_names(seats, lang)
    head = [t(lang, "table.title", game=game_name(lang, match.game),
              round=round_name(lang, match.game, view.get("round", 1)))]
    tail: list[str] = []
    result = game.result(state)
    if result["over"]:
        sides = side_names(view, names, lang)
        if result.get("draw"):
            tail.append(t(lang, "table.draw"))
        else:
            tail.append(t(lang, "table.winner", name=" & ".join(sides[w] for w in result["winners"])))
        if match.status == "finished":
            tail.append(t(lang, "replay.link", id=match.id))
    else:
        seat = shown_turn(match, state)
        if seat is not None:
            tail.append(t(lang, "table.turn", name=names[seat]))
    if view.get("target"):
        tail.append(t(lang, "table.scores", scores=ui.score_line(view, lang, names), target=view["target"]))
    else:
        tail.append(t(lang, "table.scores_no_target", scores=ui.score_line(view, lang, names)))
    if not result["over"]:
        head += ui.round_notes(view, lang, names)
    budget = summary.CAPTION_LIMIT - sum(len(line) + 1 for line in head + tail)
    moves = summary.recap(match.game, recent, shown_turn(match, state), view, names, lang, budget=budget,
                          hiding=hiding)
    return "\n".join(head + moves + tail)


Parts = tuple[OutMessage, Picture | None]  # a message without its picture, and the picture it should carry


def drawn(parts: Parts) -> OutMessage:
    """The message with its picture drawn here and now (the console, tests); the service draws off the loop."""
    message, picture = parts
    return message if picture is None else replace(message, image=picture.draw())


def table(
    match: Match, state: dict[str, Any], seats: list[Seat], lang: str, recent: Recent, images: bool
) -> OutMessage:
    return drawn(table_parts(match, state, seats, lang, recent, images))


def table_parts(
    match: Match, state: dict[str, Any], seats: list[Seat], lang: str, recent: Recent, images: bool
) -> Parts:
    """The group's table message, and (when `images`) its picture: the public view only."""
    game = engine.get(match.game)
    ui = ui_for(match.game)
    view = ui.disguise(game.view(state, None))
    names = seat_names(seats, lang)
    picture = Picture("table", match.game, {"view": view, "lang": lang, "names": [str(name) for name in names]}) \
        if images else None
    keyboard: Keyboard = []
    if not game.result(state)["over"]:
        keyboard = [[
            Button(t(lang, "btn.hand"), callbacks.encode("h", match.id)),
            Button(t(lang, "btn.score"), callbacks.encode("c", match.id)),
        ]]
        calls = [button for row in ui.standby_buttons(view, lang) for button in row if button.kind == "call"]
        if calls and match.status == "active":
            keyboard[0].insert(0, Button(calls[0].label, callbacks.encode("t", match.id)))
    elif match.status == "finished":  # the finished match's summary links to its replay (bot/core/replays.py)
        keyboard = [[Button(t(lang, "btn.replay"), callbacks.encode("y", match.id))]]
    return OutMessage(
        caption(match, state, seats, lang, recent),
        keyboard=keyboard,
        alt=ui.describe_table(view, lang, names),
    ), picture


PICK_MARK = "_"  # in a move button's code, what follows is the picking state its keyboard was drawn for


def pick_tag(pick: str | None) -> str:
    """A short fingerprint of a picking state: carried by a move button only when the state itself does not fit
    its code (and by buttons drawn before move buttons carried the state)."""
    return f"{zlib.crc32((pick or '').encode()) & 0xFFFF:04x}"


def move_code(match: Match, number: int, pick: str | None) -> str:
    """A move button's code names the keyboard it sits on: the match version and the picking state itself.

    A picking state changes without a move (Canasta's selection, Kenza's capture choice), and an old keyboard may
    still be on screen (an earlier Discord ephemeral, a message not yet edited); a fingerprint of the state could
    match another state's and play what *that* keyboard has at the same place. With the state in the code, the
    press rebuilds exactly the keyboard that was shown. Only a state too long for the 64-byte code (match ids and
    versions far beyond any real table) falls back to the fingerprint, which must then match the current state.
    """
    try:
        return callbacks.encode("m", match.id, match.version, number, PICK_MARK + (pick or ""))
    except ValueError:
        return callbacks.encode("m", match.id, match.version, number, pick_tag(pick))


def pick_of_code(tag: str, current: str | None) -> tuple[str | None, bool]:
    """The picking state a move button was drawn for, and whether it is known (a fingerprint must be the
    current state's)."""
    if tag.startswith(PICK_MARK):
        return tag[len(PICK_MARK):] or None, True
    return current, tag == pick_tag(current)


def rack_buttons(match: Match, state: dict[str, Any], seat: int, lang: str, pick: str | None,
                 view: dict[str, Any] | None = None) -> list[list[UIButton]]:
    """The seat's move controls for this state and picking state (the same list when drawn and when pressed):
    the moves the game offers it, or, while another seat moves, its standby controls (Tunj's call). `view`: the
    seat's disguised view of `state`, when the caller has it already."""
    if match.status != "active":
        return []
    game = engine.get(match.game)
    ui = ui_for(match.game)
    if view is None:
        view = ui.disguise(game.view(state, seat))
    offered = ui.offered_moves(game, state, seat)
    if not offered:
        return ui.standby_buttons(view, lang)
    buttons = ui.rack_buttons(view, offered, lang, pick)
    if ui.checked_buttons:
        buttons = _playable(game, state, seat, buttons, set(offered))
    return buttons


def _playable(game: Any, state: dict[str, Any], seat: int, buttons: list[list[UIButton]],
              listed: set[str]) -> list[list[UIButton]]:
    """The buttons without the moves the engine refuses (a button never offers a move that cannot be legal):
    a listed move is legal as it stands; any other the engine's own parser judges."""
    def legal(move: str) -> bool:
        if move in listed:
            return True
        try:
            game.parse_move(state, seat, move)
        except IllegalMove:
            return False
        return True

    kept = [[button for button in row if button.kind != "move" or legal(button.move)] for row in buttons]
    return [row for row in kept if row]


def button_moves(buttons: list[list[UIButton]]) -> list[str]:
    return [button.move for row in buttons for button in row if button.kind == "move"]


def rack(
    match: Match, state: dict[str, Any], seat: Seat, seats: list[Seat], lang: str, pick: str | None, images: bool
) -> OutMessage:
    """A seat's private rack: its own hand, and its move buttons when it is to move."""
    return drawn(rack_parts(match, state, seat, seats, lang, pick, images))


def rack_parts(
    match: Match, state: dict[str, Any], seat: Seat, seats: list[Seat], lang: str, pick: str | None, images: bool
) -> Parts:
    """A seat's rack message, and (when `images`) the picture of that seat's own view and picking state."""
    game = engine.get(match.game)
    ui = ui_for(match.game)
    view = ui.disguise(game.view(state, seat.seat))
    names = seat_names(seats, lang)
    buttons = rack_buttons(match, state, seat.seat, lang, pick, view)
    legal = any(button.kind != "call" for row in buttons for button in row)
    keyboard: Keyboard = []
    number = 0
    for row in buttons:
        bound = []
        for button in row:
            if button.kind == "move":
                bound.append(Button(button.label, move_code(match, number, pick)))
                number += 1
            elif button.kind == "pick":
                bound.append(Button(button.label, callbacks.encode("p", match.id, match.version, button.arg)))
            elif button.kind == "call":
                bound.append(Button(button.label, callbacks.encode("t", match.id)))
            else:
                bound.append(Button(button.label, callbacks.encode("k", match.id, match.version)))
        keyboard.append(bound)
    if seat.away and match.status == "active":
        keyboard.append([Button(t(lang, "btn.back_in"), callbacks.encode("i", match.id))])
    selected = ui.selected(view, pick)
    picture_view = ui.rack_view(view, pick)
    picture = Picture("rack", match.game, {"view": picture_view, "lang": lang, "names": [str(name) for name in names],
                                           "selected": sorted(selected)}) if images else None
    if legal:
        text = ui.turn_prompt(view, lang)
    elif game.result(state)["over"]:
        text = t(lang, "rack.over", game=game_name(lang, match.game))
    else:
        turn = shown_turn(match, state)
        if turn == seat.seat:
            text = t(lang, "rack.hold")  # the seat's own attempt is open to a call
        else:
            text = t(lang, "rack.waiting", name=names[turn] if turn is not None else "—")
    if seat.away:
        text += "\n" + t(lang, "rack.away")
    return OutMessage(text, keyboard=keyboard, alt=ui.describe_rack(view, lang)), picture


def scores(match: Match, state: dict[str, Any], seats: list[Seat], lang: str) -> str:
    """`/score`: every finished round with its breakdown, then the totals."""
    game = engine.get(match.game)
    view = game.view(state, None)
    names = seat_names(seats, lang)
    result = game.result(state)
    sides = side_names(view, names, lang)
    lines = [t(lang, "score.title", game=game_name(lang, match.game), target=view["target"]) if view.get("target")
             else t(lang, "score.title_no_target", game=game_name(lang, match.game))]
    sections = summary.score_text(match.game, view, names, lang)
    if sections:
        lines += sections
    else:  # a state from before the engines kept breakdowns: the totals of each round
        for number, row in enumerate(result["history"], start=1):
            lines.append(t(lang, "score.round", round=round_name(lang, match.game, number), points=" · ".join(
                f"{sides[i]} {points}" for i, points in enumerate(row))))
    lines.append(t(lang, "score.total", points=" · ".join(
        f"{sides[i]} {points}" for i, points in enumerate(result["scores"]))))
    return "\n".join(lines)


def round_ends(match: Match, state: dict[str, Any], seats: list[Seat], lang: str, first: int,
               images: bool) -> list[OutMessage]:
    """The announcements of the rounds finished from number `first` (1-based) on: a score sheet picture
    with the sheet as its caption (the match's result under the last one when it is over)."""
    return [drawn(parts) for parts in round_ends_parts(match, state, seats, lang, first, images)]


def round_ends_parts(match: Match, state: dict[str, Any], seats: list[Seat], lang: str, first: int,
                     images: bool) -> list[Parts]:
    """`round_ends`, each sheet's picture not drawn yet."""
    game = engine.get(match.game)
    view = game.view(state, None)
    names = seat_names(seats, lang)
    result = game.result(state)
    out = []
    found = summary.sheets(match.game, view, names, lang)
    for number, sheet in enumerate(found, start=1):
        if number < first:
            continue
        text = "🏁 " + sheet.text()
        if number == len(found) and result["over"]:
            sides = side_names(view, names, lang)
            text += "\n" + (t(lang, "table.draw") if result.get("draw") else
                            t(lang, "table.winner", name=" & ".join(sides[w] for w in result["winners"])))
        picture = Picture("sheet", "", {"title": str(sheet.title), "sides": [str(side) for side in sheet.sides],
                                        "rows": [(str(label), [str(cell) for cell in cells])
                                                 for label, cells in sheet.rows],
                                        "notes": [str(note) for note in sheet.notes], "lang": lang}) if images else None
        out.append((OutMessage(text, picture_name="score"), picture))  # the caption is the sheet: no alt text
    return out
