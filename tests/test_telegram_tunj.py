"""Tunj through the real python-telegram-bot Application: a whole hand between a human pressing the buttons of
the rack pictures in their private chat (source, then target; "Turn a card"; the standing "Tunj!" control when
the bot's slip is open to a call — shown like any move until the call names what it broke) and a bot; and a
rule-breaking move typed with /m in private that the bot calls at once, with the attempt and the call shown in
the group's table caption.
"""

from __future__ import annotations

from typing import Any

import engine
from bot import presenter
from bot.games import ui_for
from bot.i18n import t
from storage import Store
from tests.tg_harness import (
    GROUP_ID,
    PICTURE_CALLS,
    Bot,
    FakeTelegram,
    flat_buttons,
    group_table_calls,
    lobby_press,
    open_lobby,
    replays,
    user,
)
from tests.tunj_tables import play_out_bot_turn

GAME = engine.get("tunj")
UI = ui_for("tunj")
ALICE = user(111, "Alice")
GROUP_LANG = "ar"  # a group that never chose a language speaks Arabic
MAX_MOVES = 1500


async def open_against_bot(bot: Bot, level: str) -> int:
    match_id = await open_lobby(bot, ALICE, "/new tunj claim_seconds=5")
    await lobby_press(bot, ALICE, "b:", f":{level}")
    await lobby_press(bot, ALICE, "s:")
    match = await bot.store.get_match(match_id)
    assert match.status == "active" and match.options["claim_seconds"] == 5
    return match_id


async def position(store: Store, match_id: int) -> tuple[Any, dict[str, Any]]:
    match = await store.get_match(match_id)
    return match, GAME.from_json(match.snapshot)


def policy(legal: list[str]) -> str:
    """Call Tunj when the bot's attempt allows it; else a foundation move (the reserve's first); else a move that
    is not a house-to-house shuffle; else turn a card; else whatever is left (a shuffle)."""
    if "tunj" in legal:
        return "tunj"
    to_foundation = sorted((m for m in legal if m.split()[-1].startswith("F")), key=lambda m: m.split()[1] != "R")
    if to_foundation:
        return to_foundation[0]
    placing = [m for m in legal if m.startswith("move") and not (m.split()[1][0] == "H" and m.split()[2][0] == "H")]
    if placing:
        return placing[0]
    return "turn" if "turn" in legal else legal[0]


async def press_move(bot: Bot, match_id: int, seat: int, want: str) -> int:
    """Play `want` by pressing the rack picture's buttons: its source, then its target (or its one button).

    The recorded keyboard is read as the player reads it: its labels must be the layout's for this state and
    picking state, and the button pressed is the one whose label the layout gives to `want`. Returns presses."""
    match, state = await position(bot.store, match_id)
    pick = None
    for presses in (1, 2):
        message_id, keyboard = bot.server.rack(ALICE["id"])
        shown = flat_buttons(keyboard)
        drawn = [b for row in presenter.rack_buttons(match, state, seat, "en", pick) for b in row]
        assert [b["text"] for b in shown] == [b.label for b in drawn], "the rack shows other buttons"
        assert all(b["callback_data"].split(":")[2] == str(match.version) if b["callback_data"][0] != "t"
                   else b["callback_data"] == f"t:{match_id}" for b in shown), "only Tunj! has no version"
        target = next((i for i, b in enumerate(drawn) if (b.kind == "move" and b.move == want)
                       or (b.kind == "call" and want == "tunj")), None)
        if target is None:  # first press: the source
            source = want.split()[1].replace(":", "x")
            target = next(i for i, b in enumerate(drawn) if b.kind == "pick" and b.arg == source)
            pick = source
        answer = await bot.press(ALICE, ALICE["id"], message_id, shown[target]["callback_data"])
        assert not answer.get("show_alert"), answer
        if drawn[target].kind in ("move", "call"):
            assert answer["text"].startswith("✓ You "), answer
            return presses
    raise AssertionError(f"no button plays {want}")


async def test_whole_hand_against_a_random_bot_by_buttons(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=2) as bot:
        match_id = await open_against_bot(bot, "random")
        human = next(s.seat for s in await store.seats(match_id) if s.is_human)
        moves = presses = called = paused = 0

        async def look() -> None:
            """During the bot's turn Alice's rack holds the Tunj! control alone, and the group's table has one."""
            _, keyboard = server.rack(ALICE["id"])
            assert [b["text"] for b in flat_buttons(keyboard)] == [t("en", "tunj.btn.call")]
            table = [call for call in server.calls_to(GROUP_ID) if call.markup][-1]
            assert f"t:{match_id}" in [b["callback_data"] for b in flat_buttons(table.markup["inline_keyboard"])]

        for moves in range(MAX_MOVES):  # noqa: B007 (reported below)
            paused += await play_out_bot_turn(bot.service, bot.service.clock, match_id, look=look)
            match, state = await position(store, match_id)
            if match.status != "active":
                break
            assert GAME.to_move(state) == human, "the bot's paced turn is over"
            want = policy(GAME.legal_moves(state, human))
            if want == "tunj":
                called += 1
                _, keyboard = server.rack(ALICE["id"])
                assert [b["text"] for b in flat_buttons(keyboard)] == [t("en", "tunj.btn.call")]
                # The bot's slip reads like any move, the bot is still shown moving, and nothing names a rule.
                bot_name = t(GROUP_LANG, "bot.name", n=2 - human, level=t(GROUP_LANG, "level.random"))
                plain = UI.describe_move(state["claim"]["attempt"], GROUP_LANG)
                attempt = UI.describe_move(state["claim"]["attempt"], GROUP_LANG, GAME.view(state, None))
                caption = server.latest(GROUP_ID, *PICTURE_CALLS).shown_text
                assert f"{bot_name}: {plain}" in caption and attempt not in caption, caption
                assert t(GROUP_LANG, "table.turn", name=bot_name) in caption, caption
            presses += await press_move(bot, match_id, human, want)
            record = (await store.moves(match_id))[match.version]
            assert (record.seat, record.actor, record.move) == (human, "human", want)
            if want == "tunj":
                caption = server.latest(GROUP_ID, "editMessageMedia").shown_text
                called_on = GAME.apply(state, human, "tunj")
                named = UI.describe_move("tunj", GROUP_LANG, GAME.view(called_on, None))
                assert named != UI.describe_move("tunj", GROUP_LANG), "the call names what the slip broke"
                assert f"Alice: {named}" in caption, caption
        match, state = await position(store, match_id)
        assert match.status == "finished", f"hand not over after {moves} moves"
        result = GAME.result(state)
        assert len(result["history"]) == 1, "one hand: the match without a target"
        print(f"tunj hand over Telegram: {moves} human moves, {presses} presses, {called} calls")
        assert called >= 1, "the random bot's attempts were called with the Tunj! button"
        assert paused > moves / 4, "the bot's turns were played a move at a time"
        assert presses > moves, "moves took a source press and a target press"
        assert await replays(store, match_id)
        # Racks are pictures in the private chat; the group keeps one table picture, edited in place.
        racks = [c for c in server.calls_to(ALICE["id"]) if c.method in PICTURE_CALLS]
        assert racks and all(server.picture(c) for c in racks if c.method != "editMessageCaption")
        assert all(c.method in PICTURE_CALLS for c in server.calls_to(ALICE["id"])
                   if c.button_labels)
        sent, edits = group_table_calls(server)
        assert len(sent) == 1 and {int(c.params["message_id"]) for c in edits} == {sent[0].sent_id}


def rule_breaking(state: dict[str, Any], seat: int) -> str:
    """A house's non-ace outer card onto an empty foundation: a building-rule break the legal list never has."""
    piles = state["piles"]
    empty = next(f"F{n}" for n in range(1, 9) if not piles[f"F{n}"])
    house = next(f"H{n}" for n in range(1, 9) if piles[f"H{n}"] and piles[f"H{n}"][-1][0] != "A")
    move = f"move {house} {empty}"
    assert move not in GAME.legal_moves(state, seat)
    return move


async def type_rule_break(bot: Bot) -> tuple[int, str, int, dict[str, Any]]:
    """Alice (to move once the bot's paced opening turn is over, on seed 4) types a building-rule break with /m in
    her private chat.
    Returns (match id, the attempt, how many moves the log held before it, the state it was typed on)."""
    match_id = await open_against_bot(bot, "normal")
    await play_out_bot_turn(bot.service, bot.service.clock, match_id)  # the bot's opening turn, if it has one
    match, state = await position(bot.store, match_id)
    human = next(s.seat for s in await bot.store.seats(match_id) if s.is_human)
    assert GAME.to_move(state) == human, "Alice's turn"
    attempt = rule_breaking(state, human)
    logged = len(await bot.store.moves(match_id))
    reply = await bot.command(ALICE, ALICE["id"], "/m " + attempt)
    assert reply is not None and reply.params["text"].startswith("✓ You "), reply
    return match_id, attempt, logged, state


async def test_typed_rule_break_is_called_at_once_by_the_bot(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=4) as bot:
        match_id, attempt, logged, _ = await type_rule_break(bot)
        records = (await store.moves(match_id))[logged:]
        assert (records[0].seat, records[0].actor, records[0].move) == (0, "human", attempt)
        assert (records[1].seat, records[1].actor, records[1].move) == (1, "bot", "tunj")
        await play_out_bot_turn(bot.service, bot.service.clock, match_id)
        records = (await store.moves(match_id))[logged:]
        assert all(r.seat == 1 for r in records[1:]), "the call passed the turn to the bot"
        match, state = await position(store, match_id)
        assert GAME.to_move(state) == 0
        assert state["claim"] is None or state["claim"]["by"] == 1, "or the bot slipped and Alice may call"
        assert await replays(store, match_id)
        _, keyboard = server.rack(ALICE["id"])
        assert keyboard, "Alice's turn again: her rack has buttons"


async def test_group_caption_shows_the_typed_attempt_and_the_call(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=4) as bot:
        before = len(server.calls)
        match_id, attempt, logged, typed_on = await type_rule_break(bot)
        records = (await store.moves(match_id))[logged:]
        assert [r.move for r in records[:2]] == [attempt, "tunj"]
        captions = [c.shown_text for c in server.calls[before:]
                    if c.chat_id == str(GROUP_ID) and c.method in PICTURE_CALLS]
        assert captions, "the table was updated"
        first = GAME.apply(typed_on, 0, attempt)
        assert first["claim"] is not None
        attempted = f"Alice: {UI.describe_move(attempt, GROUP_LANG, GAME.view(first, None))}"
        bot_name = t(GROUP_LANG, "bot.name", n=2, level=t(GROUP_LANG, "level.normal"))
        called = f"{bot_name}: {UI.describe_move('tunj', GROUP_LANG)}"
        assert any(called in caption for caption in captions), captions
        assert any(attempted in caption for caption in captions), captions
