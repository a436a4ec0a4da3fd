"""Replays (issue 15, point 5): a recorded match rebuilt from its move log equals its stored final state; `/replay`
and the finished table's button post it as an animation of public views only; refusals for what cannot be replayed."""

from __future__ import annotations

import io
import json
import random

import pytest
from PIL import Image
from sqlalchemy import text

import engine
from bot import callbacks, replay
from bot.games import ui_for
from bot.i18n import round_name, t
from bot.messages import Actor, ChatRef
from bot.service import Service
from engine.bots import decide
from storage import Store
from tests.chat import console_service, fake_service
from tests.clock import Clock

ALI = Actor("fake", "41", "Ali", language="en")
MONA = Actor("fake", "42", "Mona", language="en")
GROUP = ChatRef("fake", "-500")


async def played_match(service: Service, store: Store, chat: ChatRef = GROUP, game: str = "kenza",
                       words: tuple[str, ...] = ("target=101",)) -> int:
    """Ali against a normal bot, Ali's moves chosen by the normal bot and typed with /m, to the end."""
    private = ChatRef(chat.platform, ALI.user_id, private=True)
    await service.command(ALI, private, "start")
    await service.command(ALI, chat, "new", [game, *words])
    match = await store.lobby_or_active_match(chat.platform, chat.chat_id)
    assert match is not None
    await service.press(ALI, chat, callbacks.encode("b", match.id, "normal"))
    assert not (await service.press(ALI, chat, callbacks.encode("s", match.id))).alert
    rng = random.Random(3)
    rules = engine.get(game)
    for _ in range(3000):
        match = await store.get_match(match.id)
        if match.status != "active":
            break
        state = rules.from_json(match.snapshot)
        move = decide(game, state, rules.to_move(state), "normal", rng, slips=False)
        reply = await service.command(ALI, private, "m", move.split())
        assert not reply.alert, reply.text
    assert match.status == "finished"
    return match.id


@pytest.fixture
async def table(tmp_path):
    async with fake_service(tmp_path / "replay.db", 11, images=True) as (service, transport, store, clock):
        yield service, transport, store, clock
        await service.close()


async def test_a_recorded_match_replays_to_its_stored_final_state(table):
    service, transport, store, clock = table
    match_id = await played_match(service, store)
    match = await store.get_match(match_id)
    seats, moves = await store.seats(match_id), await store.moves(match_id)
    game = engine.get(match.game)
    states = replay.states(match, len(seats), moves)
    assert len(states) == len(moves) + 1 == match.version + 1
    assert game.to_json(states[-1]) == match.snapshot
    assert game.result(states[-1]) == match.result
    steps = replay.steps(match, len(seats), moves)
    # Every frame is the group's view of that moment, never a seat's: no hand is in any of them.
    ui = ui_for(match.game)
    for step, state in zip(steps, states, strict=True):
        assert step.view == ui.disguise(game.view(state, None)) and "hand" not in step.view
    assert steps[-1].view == ui.disguise(game.view(game.from_json(match.snapshot), None))
    ends = [step.number for step in steps if step.round_over]
    assert len(ends) == len(match.result["history"]) and ends[-1] == len(moves)
    frames = replay.pick_frames(steps, 20)
    assert len(frames) == 20 and frames[0].number == 0 and frames[-1].number == len(moves)
    assert set(ends) <= {frame.number for frame in frames} or len(ends) > 18


async def test_replay_command_posts_an_animation_in_the_chat(table):
    service, transport, store, clock = table
    match_id = await played_match(service, store)
    # The finished table (edited in place; the last round's score sheet was posted after it) links to the replay.
    final = next(message for (chat, _), message in transport.current.items()
                 if chat == GROUP.chat_id and message.image is not None and "🏁" not in message.text)
    assert [[b.data for b in row] for row in final.keyboard] == [[f"y:{match_id}"]]
    assert f"/replay {match_id}" in final.text
    before = len(transport.sent)
    reply = await service.command(MONA, GROUP, "replay", [f"#{match_id}"])
    assert reply.text == "" and not reply.alert
    posted = transport.sent[before:]
    assert len(posted) == 1 and posted[0].chat_id == GROUP.chat_id
    message = posted[0].message
    assert message.animated and message.picture_name == "replay" and f"#{match_id}" in message.text
    gif = Image.open(io.BytesIO(message.image))
    moves = len(await store.moves(match_id))
    assert gif.format == "GIF" and gif.n_frames == min(moves + 1, replay.MAX_FRAMES)
    # The same replay again at once: told it is just above, nothing posted; a minute later it may be posted again.
    again = await service.press(ALI, GROUP, callbacks.encode("y", match_id))
    assert again.alert and len(transport.sent) == before + 1
    clock.now += 61
    assert not (await service.press(ALI, GROUP, callbacks.encode("y", match_id))).alert
    assert len(transport.sent) == before + 2 and transport.sent[-1].message.animated


async def test_what_cannot_be_replayed_is_refused_to_the_asker_only(table):
    service, transport, store, clock = table
    match_id = await played_match(service, store)
    before = len(transport.sent)
    for args in (["abc"], ["1", "2"], ["٣"], ["-1"]):
        assert "/replay" in (await service.command(MONA, GROUP, "replay", args)).text
    assert (await service.command(MONA, GROUP, "replay", ["999"])).is_error
    await service.command(ALI, GROUP, "new", ["kenza"])
    lobby = await store.lobby_or_active_match("fake", GROUP.chat_id)
    refused = await service.command(MONA, GROUP, "replay", [str(lobby.id)])
    assert refused.is_error and "not finished" in refused.text
    # A match from another platform is not there to replay.
    other = Actor("other", "9", "Zed", language="en")
    assert (await service.command(other, ChatRef("other", "-1"), "replay", [str(match_id)])).alert
    # A log that no longer leads to the stored final state (here: its seed changed by hand) is not shown.
    async with store.transaction() as db:
        await db.execute(text("UPDATE matches SET seed = seed + 1 WHERE id = :id"), {"id": match_id})
    broken = await service.command(MONA, GROUP, "replay", [str(match_id)])
    assert broken.is_error and "cannot be replayed" in broken.text
    assert len(transport.sent) == before + 1  # only the new lobby was posted
    # Without a number: the chat's latest table (the lobby, not finished).
    assert "not finished" in (await service.command(MONA, GROUP, "replay")).text


async def test_a_match_stored_before_the_state_gained_its_round_breakdowns_still_replays(table):
    """Issue 26: a Kenza match finished before the state gained `deal_log` (state version 2) was refused as
    "cannot be replayed": today's engine, playing the log again, writes the breakdowns the old snapshot lacks."""
    service, transport, store, clock = table
    match_id = await played_match(service, store)
    game = engine.get("kenza")
    played = (await store.get_match(match_id)).snapshot
    assert played["deal_log"], "today's engine keeps every deal's breakdown"
    old = {key: value for key, value in played.items() if key not in ("deal_log", "state_version")}
    async with store.transaction() as db:  # the snapshot as the engine before version 2 stored it
        await db.execute(text("UPDATE matches SET snapshot = :s WHERE id = :id"),
                         {"s": json.dumps(old), "id": match_id})
    before = len(transport.sent)
    reply = await service.command(MONA, GROUP, "replay", [str(match_id)])
    assert not reply.is_error, reply.text
    (posted,) = transport.sent[before:]
    seats, moves = await store.seats(match_id), await store.moves(match_id)
    assert posted.message.animated and Image.open(io.BytesIO(posted.message.image)).n_frames == min(
        len(moves) + 1, replay.MAX_FRAMES)
    match = await store.get_match(match_id)
    assert match.snapshot == old and game.version_of(match.snapshot) == 1
    states = replay.states(match, len(seats), moves)  # no ReplayMismatch
    assert game.as_of(states[-1], 1) == old and game.result(states[-1]) == match.result
    last = replay.steps(match, len(seats), moves)[-1].view
    assert last["scores"] == old["scores"] and len(last["details"]) == len(old["history"])
    # Read back in, the old state is today's version, its breakdowns unknown (the sheet shows none).
    upgraded = game.from_json(old)
    assert game.version_of(upgraded) == game.state_version == 2 and game.view(upgraded, None)["details"] == []
    # What the old version did hold is still checked: an old snapshot the log does not lead to is refused.
    wrong = {**old, "scores": [score + 1 for score in old["scores"]]}
    async with store.transaction() as db:
        await db.execute(text("UPDATE matches SET snapshot = :s WHERE id = :id"),
                         {"s": json.dumps(wrong), "id": match_id})
    with pytest.raises(replay.ReplayMismatch):
        replay.states(await store.get_match(match_id), len(seats), moves)


# What each game's state gained before states were versioned (version 1 -> 2), as an older engine stored it.
BEFORE_VERSIONS = {"kenza": ("deal_log", None, ()), "canasta": ("hand_log", "last_hand", ("counts", "totals")),
                   "tunj": ("hand_log", None, ()), "konkan_cards": ("round_log", "last_round", ("totals",)),
                   "konkan_tiles": ("round_log", "turn", ("taken_laid",))}


@pytest.mark.parametrize("game_id", sorted(BEFORE_VERSIONS))
def test_every_game_compares_an_unversioned_state_at_its_own_version(game_id):
    """A state as the engines stored it before states carried a version (checked once against the engines of
    commit 227854a^: the same seed and moves gave exactly these states): it is the same position as today's at
    version 1, it is read back as version 2, and today's engine plays on from it."""
    game = engine.get(game_id)
    players = {"canasta": 4, "konkan_cards": 4}.get(game_id, 2)
    state = game.new(players, {}, seed=11)
    assert game.version_of(state) == game.state_version == 2
    rng = random.Random(5)
    while not game.result(state)["history"]:
        seat = game.to_move(state)
        state = game.apply(state, seat, decide(game_id, state, seat, "normal", rng, slips=False))
    log, parent, inner = BEFORE_VERSIONS[game_id]
    assert state[log], "a finished round is logged"
    old = {key: value for key, value in game.to_json(state).items() if key not in (log, "state_version")}
    if parent is not None and isinstance(old.get(parent), dict):
        old[parent] = {key: value for key, value in old[parent].items() if key not in inner}
    assert game.version_of(old) == 1
    assert replay.same_position(game, state, old) and game.as_of(state, 1) == old
    assert not replay.same_position(game, state, {**old, "round": old["round"] + 1})
    assert game.from_json(game.to_json(state)) == state  # today's states round-trip unchanged
    upgraded = game.from_json(old)
    assert game.version_of(upgraded) == 2 and replay.same_position(game, state, upgraded) is False  # no log
    assert game.as_of(upgraded, 1) == old
    for seat in [None, *range(players)]:
        game.view(upgraded, seat)
    seat = game.to_move(upgraded)
    if seat is not None:
        game.apply(upgraded, seat, decide(game_id, upgraded, seat, "normal", rng, slips=False))


async def test_terminal_replay_lists_the_moves_round_by_round():
    clock = Clock()
    store, service, transport, out = await console_service(5, clock)
    try:
        table = ChatRef("console", "table")
        you = Actor("console", "you", "Ali", language="en", is_admin=True)
        await service.command(you, table, "lang", ["en"])
        match_id = await _console_match(service, store, you, table)
        start = len(out.getvalue())
        reply = await service.command(you, table, "replay", [str(match_id)])
        assert reply.text == ""
        text = out.getvalue()[start:]
        moves = await store.moves(match_id)
        assert f"#{match_id}" in text and t("en", "recap.round", round="Deal 1") in text and f"{len(moves)}. " in text
        assert "🏆" in text or "🤝" in text
    finally:
        await service.close()
        await store.close()


async def _console_match(service: Service, store: Store, you: Actor, table: ChatRef) -> int:
    private = ChatRef(table.platform, you.user_id, private=True)
    await service.command(you, private, "start")
    await service.command(you, table, "new", ["kenza", "target=101"])
    match = await store.lobby_or_active_match(table.platform, table.chat_id)
    await service.press(you, table, callbacks.encode("b", match.id, "normal"))
    await service.press(you, table, callbacks.encode("s", match.id))
    rng = random.Random(4)
    rules = engine.get("kenza")
    while (match := await store.get_match(match.id)).status == "active":
        state = rules.from_json(match.snapshot)
        move = decide("kenza", state, rules.to_move(state), "normal", rng, slips=False)
        assert not (await service.command(you, private, "m", move.split())).alert
    return match.id


@pytest.mark.parametrize("game_id,players,options", [
    ("kenza", 2, {}), ("canasta", 2, {"variant": "duo"}), ("konkan_cards", 2, {}), ("konkan_tiles", 2, {}),
    ("konkan_tiles", 4, {"mode": "quick"}), ("tunj", 2, {"target": 300}),
])
def test_terminal_replay_lists_each_move_under_the_deal_it_was_played_in(game_id, players, options):
    """Issue 25, defect 3: the move that ended a deal was listed under the next deal's heading ("Deal 2: 36. Bot 2:
    7🪵 to the table", a deal-1 move). Bots play two deals; the move after which the engine's history holds k deals
    is the last line under "Deal k", and the next move opens "Deal k+1"."""
    from types import SimpleNamespace

    from bot.core.replays import _move_lines

    rules = engine.get(game_id)
    state, rng, moves, ended = rules.new(players, options, seed=5), random.Random(1), [], {}
    while not rules.result(state)["over"] and len(rules.result(state)["history"]) < 2:
        seat = rules.to_move(state)
        move = decide(game_id, state, seat, "random", rng, slips=False)
        moves.append(SimpleNamespace(seat=seat, move=move))
        dealt = len(rules.result(state)["history"])
        state = rules.apply(state, seat, move)
        if len(rules.result(state)["history"]) > dealt:
            ended[len(moves)] = len(rules.result(state)["history"])  # move number -> the deal it ended
    assert ended, "the bots finished no deal"
    match = SimpleNamespace(game=game_id, options=rules.check_options(players, options), seed=5, snapshot=None, id=1)
    lines = _move_lines(match, replay.steps(match, players, moves), [f"P{n}" for n in range(players)], "en")
    heading, under = None, {}
    for line in lines:
        number = line.split(".", 1)[0]
        if number.isdigit():
            under[int(number)] = heading
        else:
            heading = line
    assert sorted(under) == list(range(1, len(moves) + 1))
    for number, deal in ended.items():
        heading_of_deal = t("en", "recap.round", round=round_name("en", game_id, deal))
        assert under[number] == heading_of_deal, lines[number - 3:number + 3]
        if number + 1 in under:
            assert under[number + 1] == t("en", "recap.round", round=round_name("en", game_id, deal + 1))
