"""Checks that every message a recipient got holds only what that recipient's view allows, for any game and any
platform harness.

Each harness hands `PictureCheck.see` what one recipient received (picture bytes, every readable word, button
labels) at the moment it was sent or edited. The check then renders, from the stored state of that moment and
*independently of the presenter*, what that recipient may see: a rack must be byte for byte the renderer's output
for the recipient's own seat view (with that seat's picking state), and a group/channel table the render of the
public view. To show the comparison can tell seats apart, each rack is also rendered from every other seat's
view; those renders must differ from the one received (they are counted, so a test can require that the check
actually discriminated). Words are checked as players read them: card labels with their suit marks ("6⚔️",
"10♥"), never engine codes.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import engine
import renderers
from bot import presenter, summary
from bot.games import canasta as canasta_ui
from bot.games import kenza as kenza_ui
from bot.games import konkan_cards as konkan_cards_ui
from bot.games import konkan_tiles as konkan_tiles_ui
from bot.games import tunj as tunj_ui
from bot.games import ui_for
from bot.i18n import pick_language
from bot.presenter import seat_names

CARD_CODE: dict[str, re.Pattern[str]] = {
    "kenza": re.compile(r"^(?:1[0-2]|[1-9])[OCEB]$"),
    "canasta": re.compile(r"^(?:[2-9TJQKA][SHDC]|X)$"),
    "tunj": re.compile(r"^[2-9TJQKA][SHDC]$"),
    "konkan_tiles": re.compile(r"^(?:[RKBY](?:1[0-3]|[1-9])|F)$"),
    "konkan_cards": re.compile(r"^(?:[2-9TJQKA][SHDC]|X)$"),
}
LABEL: dict[str, Callable[[str], str]] = {
    "kenza": kenza_ui.card_label,
    "canasta": canasta_ui.card_label,
    "tunj": tunj_ui.card_label,
    "konkan_tiles": konkan_tiles_ui.tile_label,
    "konkan_cards": konkan_cards_ui.card_label,
}
# A rack told in words may name a card otherwise than its button: a tile there carries the code a typed move uses
# ("🟥R9" where the button says "🟥9").
TEXT_LABEL: dict[str, Callable[[str], str]] = {"konkan_tiles": konkan_tiles_ui.tile_code}
# A rack button naming one hand card: "3. 6⚔️" (Kenza; a trailing " …" opens the capture choice), "✓ 3. 10♥" (Canasta).
HAND_BUTTON = re.compile(r"^(?:[✓📌] )?(\d+)\. (\S+?)(?: …)?$")


def recap_moves(records: list[Any], match: Any, state: dict[str, Any]) -> list[str]:
    """The moves the table's recap may name: every move since the seat to move last played (bot.summary),
    one more (a round's last move stays in view under its round), and at least the last eight. Their cards
    were public when played, though a new deal may have dealt the same codes into a hidden hand."""
    entries = [(record.seat, record.move, {}, 0) for record in records]
    window = len(summary.since_last_turn(entries, presenter.shown_turn(match, state))) + 1
    return [record.move for record in records[-max(8, window):]]


def card_codes(game_id: str, data: Any) -> set[str]:
    """Every card code written anywhere in a JSON value (move strings are split into words)."""
    pattern = CARD_CODE[game_id]
    if isinstance(data, str):
        return {word for word in data.split() if pattern.match(word)}
    if isinstance(data, dict):
        return set().union(*(card_codes(game_id, value) for value in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(card_codes(game_id, value) for value in data)) if data else set()
    return set()


def shows_label(text: str, label: str) -> bool:
    """Whether `label` appears as a whole card label (so "1🪙" is not found inside "11🪙", nor the tile "🟦1"
    inside "🟦13")."""
    return re.search(rf"(?<![0-9]){re.escape(label)}(?![0-9])", text) is not None


@dataclass
class Received:
    """One message as its recipient saw it; `seat` None: the shared table (group chat / channel)."""

    chat_id: str
    seat: int | None
    image: bytes | None
    text: str
    buttons: list[str] = field(default_factory=list)
    rack_text: str = ""  # the rack told in words, where the platform shows it (alt text / attachment description)


class Turn(NamedTuple):
    """One turn of a checked match: the seat to move, and the waiting seat that asks for its hand this turn."""

    step: int
    match: Any
    state: dict[str, Any]
    seat: int
    waiting: int


class PictureCheck:
    """Collects problems (never raises inside a transport hook: the harness would turn it into a delivery error)."""

    def __init__(self, store: Any, service: Any, platform: str, group_chat: str) -> None:
        self.store, self.service = store, service
        self.platform, self.group_chat = platform, str(group_chat)
        self.problems: list[str] = []
        self.racks: dict[int, int] = {}  # seat -> rack pictures checked
        self.racks_waiting: dict[int, int] = {}  # seat -> rack pictures checked while another seat was to move
        self.tables = 0
        self.told_apart: dict[int, int] = {}  # seat -> renders of another seat's view that differ from its rack
        self.hand_texts = 0  # racks whose words listed the seat's hand, checked card by card
        self.hand_buttons = 0  # rack buttons naming a hand card, checked against the seat's own hand

    async def seat_of_user(self, match: Any, user_id: str) -> int | None:
        for seat in await self.store.seats(match.id):
            if seat.player_id is None:
                continue
            player = await self.store.get_player(seat.player_id)
            if player is not None and player.user_id == str(user_id):
                return seat.seat
        return None

    async def turns(self, match_id: int, players: int, steps: int, max_steps: int) -> AsyncIterator[Turn]:
        """Each turn while the match runs: at least `steps`, then until every seat's rack was checked while it
        waited (at most `max_steps`). The waiting seat to ask for its hand cycles through the others."""
        for step in range(max_steps):
            match = await self.store.get_match(match_id)
            if match.status != "active" or (step >= steps and len(self.racks_waiting) == players):
                return
            state = engine.get(match.game).from_json(match.snapshot)
            seat = engine.get(match.game).to_move(state)
            yield Turn(step, match, state, seat, (seat + 1 + step % (players - 1)) % players)

    async def match(self) -> Any:
        match = await self.store.latest_match(self.platform, self.group_chat)
        return match if match is not None and match.snapshot is not None else None

    async def _langs(self, match: Any, seats: list[Any]) -> tuple[str, dict[int, str]]:
        chat_lang = pick_language((await self.store.get_chat(self.platform, self.group_chat)).language)
        langs = {}
        for seat in seats:
            player = await self.store.get_player(seat.player_id) if seat.player_id else None
            langs[seat.seat] = chat_lang if player is None else pick_language(
                player.language, player.client_language, chat_lang)
        return chat_lang, langs

    async def see(self, got: Received) -> None:
        match = await self.match()
        if match is None:
            return
        try:
            await self._check(match, got)
        except Exception as error:  # noqa: BLE001 - reported as a problem, the harness must keep running
            self.problems.append(f"check failed on {got.chat_id}: {error!r}")

    async def _recap_moves(self, match: Any, state: dict[str, Any]) -> list[str]:
        return recap_moves(await self.store.moves(match.id), match, state)

    async def _check(self, match: Any, got: Received) -> None:
        game_id = match.game
        game = engine.get(game_id)
        ui = ui_for(game_id)
        state = game.from_json(match.snapshot)
        seats = await self.store.seats(match.id)
        chat_lang, langs = await self._langs(match, seats)
        seat = got.seat
        view = ui.disguise(game.view(state, seat))  # as the chat may show it (an open Tunj claim looks like a move)
        where = "table" if seat is None else f"seat {seat}"
        if got.image is not None and seat is None and got.text.startswith("🏁"):
            # A finished round's score sheet: drawn from the public view's breakdown of that round, nothing else.
            public = game.view(state, None)
            names = seat_names(seats, chat_lang)
            drawn = [renderers.render_sheet(sheet.title, sheet.sides, sheet.rows, sheet.notes, chat_lang)
                     for sheet in summary.sheets(game_id, public, names, chat_lang)
                     if got.text.removeprefix("🏁 ").startswith(sheet.text())]
            if got.image not in drawn:
                self.problems.append(f"v{match.version}: a score sheet picture is not a public round's sheet")
        elif got.image is not None:
            if seat is None:
                expected = renderers.render_table(game_id, view, lang=chat_lang, names=seat_names(seats, chat_lang))
                self.tables += 1
                if got.image != expected:
                    self.problems.append(f"v{match.version}: the table picture is not the public view's render")
            else:
                self._check_rack_picture(match, game, ui, state, seats, seat, langs[seat], got)
        # Words: nothing the recipient's view hides, by its label as displayed.
        label = LABEL[game_id]
        recent = card_codes(game_id, await self._recap_moves(match, state))
        hidden = card_codes(game_id, match.snapshot) - card_codes(game_id, view) - recent
        words = "\n".join([got.text, got.rack_text, *got.buttons])
        for code in sorted(hidden):
            if shows_label(words, label(code)):
                self.problems.append(f"v{match.version}: {where} was shown {label(code)} ({code}), hidden from it")
        if seat is not None:
            self._check_rack_words(game_id, view, got, label, where, match.version)

    def _check_rack_picture(self, match: Any, game: Any, ui: Any, state: dict[str, Any], seats: list[Any],
                            seat: int, lang: str, got: Received) -> None:
        names = seat_names(seats, lang)
        pick = self.service._picks.get((match.id, seat))

        def render(view_seat: int) -> bytes:
            view = ui.disguise(game.view(state, view_seat))
            return renderers.render_rack(match.game, ui.rack_view(view, pick), lang=lang, names=names,
                                         selected=ui.selected(view, pick))

        expected = render(seat)
        self.racks[seat] = self.racks.get(seat, 0) + 1
        if game.to_move(state) not in (seat, None):
            self.racks_waiting[seat] = self.racks_waiting.get(seat, 0) + 1
        if got.image != expected:
            self.problems.append(f"v{match.version}: seat {seat}'s rack is not the render of its own view")
        for other in range(len(seats)):
            if other == seat:
                continue
            theirs = render(other)
            if theirs == expected:
                continue  # the two views draw alike (e.g. both hands empty): nothing to tell apart
            self.told_apart[seat] = self.told_apart.get(seat, 0) + 1
            if got.image == theirs:
                self.problems.append(f"v{match.version}: seat {seat} got seat {other}'s rack")

    def _check_rack_words(self, game_id: str, view: dict[str, Any], got: Received, label: Callable[[str], str],
                          where: str, version: int) -> None:
        """A rack names its own seat's cards: a hand button's number and label are that seat's card there, and a
        rack told in words lists exactly that seat's hand, in order, on its first line."""
        hand = [label(code) for code in view.get("hand") or []]
        for text in got.buttons:
            found = HAND_BUTTON.match(text)
            if found is None:
                continue
            number, shown = int(found.group(1)), found.group(2)
            self.hand_buttons += 1
            if not (1 <= number <= len(hand) and hand[number - 1] == shown):
                self.problems.append(f"v{version}: {where}'s button {text!r} is not its card {number}")
        if got.rack_text and game_id != "tunj":  # a Tunj hand is face down even to its owner
            listed = re.findall(r"(\d+)\) (\S+)", got.rack_text.splitlines()[0])  # the hand's line
            self.hand_texts += 1
            told = [TEXT_LABEL.get(game_id, label)(code) for code in view.get("hand") or []]
            if [shown for _, shown in listed] != told:
                self.problems.append(f"v{version}: {where}'s rack text lists {listed}, its hand is {told}")

    def assert_clean(self, seats: int, *, waiting: bool = True) -> None:
        """No problem seen, and the check did its work: each seat's rack was checked (also while waiting) and told
        apart from another seat's render, and the table picture was checked."""
        assert not self.problems, "\n".join(self.problems[:20])
        assert self.tables > 0, "no table picture was checked"
        for seat in range(seats):
            assert self.racks.get(seat, 0) > 0, f"no rack picture of seat {seat} was checked"
            if waiting:
                assert self.racks_waiting.get(seat, 0) > 0, f"no rack of seat {seat} checked while it waited"
            assert self.told_apart.get(seat, 0) > 0, f"seat {seat}'s rack was never told apart from another's"
