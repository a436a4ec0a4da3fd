"""Issue 11, points 1 and 2 through the service: a finished hand or deal is announced with who ended it and its
breakdown (the numbers are the engine's), `/score` lists every finished round, and the table's recap covers every
move since the seat to move last played, folded where long, a round's last move under that round."""

from __future__ import annotations

import re

import pytest

import engine
from bot import callbacks, summary
from bot.messages import Actor, ChatRef
from storage import Store
from tests.chat import Clock, fake_service
from tests.fakes import FakeTransport, force_layout

GROUP = ChatRef("fake", "-300", private=False)
ALI = Actor("fake", "21", "Ali", language="en", is_admin=True)
MONA = Actor("fake", "22", "Mona", language="en")
SAMI = Actor("fake", "23", "Sami", language="en")
HIND = Actor("fake", "24", "Hind", language="en")
ACES7 = ["AS", "AS", "AH", "AH", "AD", "AD", "AC"]
KINGS = ["KS", "KH", "KD", "KC"]



@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "summaries.db", 5, images=True, now=1000.0) as (service, transport, store, _):
        yield service, transport, store
    await store.close()


async def open_table(service, game_id, others):
    """Humans only, so nobody moves before the test lays out its deal (`force_layout` needs version 0)."""
    await service.command(ALI, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", [game_id])
    match = await service.store.lobby_or_active_match("fake", GROUP.chat_id)
    for actor in others:
        await service.press(actor, GROUP, callbacks.encode("j", match.id))
    reply = await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    assert not reply.alert, reply.text
    return await service.store.get_match(match.id)


def sheets_sent(transport):
    return [shown.message for shown in transport.sent if shown.chat_id == GROUP.chat_id
            and shown.message.text.startswith("🏁")]


async def table_caption(transport, store, match):
    """The table message's caption as it stands now (edited in place)."""
    record = await store.get_message("fake", "table", match_id=match.id, seat=None)
    return transport.current[(record.chat_id, record.message_id)].text


async def test_canasta_hand_end_is_announced_with_the_engines_breakdown(setup):
    service, transport, store = setup
    match = await open_table(service, "canasta", (MONA, SAMI, HIND))
    await force_layout(store, match.id, {"hands": [ACES7, ["5S"], ["6S"], ["7S"]], "stock": ["4C"], "discard": ["QC"],
                                         "dealer": 3})
    await service.resume()
    for move in ("draw", "meld AS AS AH AH AD AD AC", "discard 4C"):
        reply = await service.command(ALI, GROUP, "m", move.split())
        assert not reply.alert, reply.text
    match = await store.get_match(match.id)
    view = engine.get("canasta").view(engine.get("canasta").from_json(match.snapshot), None)
    detail = view["details"][0]
    assert detail["went_out"] == 0 and detail["concealed"] and detail["points"] == [835, -10]
    assert detail["counts"][0] == {"natural": 1, "mixed": 0, "red3s": 0, "melded": 7, "left": 1}
    [sheet] = sheets_sent(transport)
    lines = sheet.text.splitlines()
    assert lines[0] == "🏁 Hand 1: Ali went out concealed"
    team = next(line for line in lines if line.startswith("Ali & "))
    assert "natural canastas 1 → +500" in team and "mixed canastas 0 → 0" in team
    assert "going out +200" in team and f"cards melded 7 → +{detail['detail'][0]['melded']}" in team
    assert "cards left 1 → -5" in team and "Points +835" in team and "Total 835" in team  # Sami's 6♠
    other = next(line for line in lines if line.startswith("Mona & "))
    assert "cards left 2 → -10" in other and "going out 0" in other and "Points -10" in other
    assert sheet.image is not None and sheet.image.startswith(b"\x89PNG")
    # The table's recap keeps the hand's last moves and its end under hand 1, though hand 2 has begun.
    caption = await table_caption(transport, store, match)
    assert "2" in caption.splitlines()[0]  # the title names hand 2
    assert caption.index("Hand 1:") < caption.index("Ali: ") < caption.index("🏁 Hand 1: Ali went out concealed")
    assert "Ali & Sami +835 · Mona & Hind -10" in caption
    assert len([line for line in caption.splitlines() if line.startswith("Ali: ")]) == 3  # every move, a line each
    assert len(caption) <= summary.CAPTION_LIMIT
    # /score: the hand with its breakdown, not only the totals.
    score = (await service.command(ALI, GROUP, "score")).text
    assert "Hand 1: Ali went out concealed" in score and "natural canastas 1 → +500" in score


async def test_tunj_hand_end_shows_the_formula_with_its_numbers(setup):
    service, transport, store = setup
    match = await open_table(service, "tunj", (MONA,))
    houses = [[KINGS[i % 4]] for i in range(8)]
    await force_layout(store, match.id, {
        "reserves": [["AS"], ["5C", "6C", "7C", "8C", "9C"]],
        "hands": [[], ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD"]],
        "wastes": [[], ["2H", "3H", "4H", "5H"]], "houses": houses, "to_move": 0,
    })
    await service.resume()
    reply = await service.command(ALI, GROUP, "m", ["move", "R", "F1"])
    assert not reply.alert, reply.text
    [sheet] = sheets_sent(transport)
    text = sheet.text
    assert text.startswith("🏁 Hand 1: Ali emptied reserve, hand and waste")
    assert "Ali: 30 + 10 (hand) + 4 (waste) + 2 × 5 (reserve) = 54" in text
    bot_line = next(line for line in text.splitlines() if line.startswith("Mona"))
    assert "hand 10" in bot_line and "waste 4" in bot_line and "reserve 5" in bot_line
    assert "burden (hand + waste + 2 × reserve) 24" in bot_line
    assert "🏆" in text.splitlines()[-1]  # the match ended with this hand


async def test_a_long_bot_tunj_turn_is_folded_in_the_recap(setup):
    """Mona is away, so a bot plays her turn (without slips): her reserve of 8 goes home, then a card turned."""
    service, transport, store = setup
    match = await open_table(service, "tunj", (MONA,))
    houses = [[KINGS[i % 4]] for i in range(8)]
    reserve = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    await force_layout(store, match.id, {
        "reserves": [["9D"], reserve], "hands": [["QH", "JC", "9H"], ["2D"]], "wastes": [[], []],
        "houses": houses, "to_move": 1,
    })
    await store.set_seat_flags(match.id, 1, away=True)
    await service.resume()
    moves = await store.moves(match.id)
    assert [record.move for record in moves][-1] == "turn" and len(moves) == 9  # eight cards home, one turned
    caption = await table_caption(transport, store, match)
    folded = next(line for line in caption.splitlines() if line.startswith("Mona"))
    assert re.fullmatch(r"Mona: 9 moves — reserve emptied \(8 → 0\), F\d to 8♠, turned a card", folded)
    assert "▶ Ali to play" in caption


def test_recap_folds_harder_and_cuts_the_oldest_to_fit_a_caption():
    """A hundred short runs cannot all fit 1024 characters: the recap folds, then drops the oldest, never more."""
    view = {"round": 1, "details": []}
    entries = [(0, "play 1O", view, 1)] + [(1 + number % 2, "play 1O", view, 1) for number in range(200)]
    lines = summary.recap("kenza", summary.Log(entries), 0, view, ["Ali", "Mona", "Sami"], "en", budget=300)
    assert sum(len(line) + 1 for line in lines) <= 300
    assert lines[0] == "…" and lines[-1] == "Sami: 1🪙 to the table" and len(lines) > 5
    # Since the viewer's previous turn: back over its own moves of this turn, then to its previous move.
    assert summary.since_last_turn([(0, "a", view, 1), (1, "b", view, 1), (1, "c", view, 1), (0, "d", view, 1)],
                                   0) == [(1, "b", view, 1), (1, "c", view, 1), (0, "d", view, 1)]


async def test_a_deal_that_ended_while_the_bot_was_down_is_announced_after_the_restart(tmp_path):
    """The pending-delivery mark survives a restart; the score sheets it owes are found again by replaying the log
    up to the delivered version, and each goes out once."""
    from tests.chat import opened_store
    from tests.test_restart_timers import GAME, ali_and_a_bot, service_on
    from tests.test_service import ALI as KENZA_ALI

    path, clock, transport = str(tmp_path / "owed-sheet.db"), Clock(1000.0), FakeTransport()
    match_id = await ali_and_a_bot(path, clock, transport)
    # Moves stored (both seats), then the process dies before any screen shows them: a deal ends meanwhile.
    store = await Store.open(path)
    match = await store.get_match(match_id)
    assert match.delivered_version == match.version, "the first process showed everything it stored"
    state, version = GAME.from_json(match.snapshot), match.version
    while not GAME.result(state)["history"]:
        seat = GAME.to_move(state)
        move = GAME.legal_moves(state, seat)[0]
        state = GAME.apply(state, seat, move)
        match = await store.apply_move(match_id, version, seat, "human" if seat == 0 else "bot", move,
                                       GAME.to_json(state), None)
        version = match.version
    await store.close()
    group = [s for s in transport.sent if s.chat_id == "-100" and s.message.text.startswith("🏁")]
    assert not group, "no sheet went out before the stop"

    async with opened_store(path) as store:
        service = service_on(store, clock, transport, seed=6)
        await service.resume()
        sheets = [s.message for s in transport.sent if s.chat_id == "-100" and s.message.text.startswith("🏁")]
        assert len(sheets) == 1 and "1" in sheets[0].text.splitlines()[0]
        assert KENZA_ALI.name in sheets[0].text
        await service.resume()  # delivered now: a second restart announces nothing again
        assert len([s for s in transport.sent if s.chat_id == "-100" and s.message.text.startswith("🏁")]) == 1
