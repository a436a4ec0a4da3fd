"""Canasta in chat: the rummy picker's states and offered actions, the texts, and whole matches through the service
played by pressing buttons only."""

from __future__ import annotations

import random

import pytest

import engine
from bot import callbacks
from bot.games import playable_games, ui_for
from bot.games.canasta import UI, card_label, meld_text
from bot.games.rummy import MAX_PICK, Pick, fingerprint
from bot.i18n import catalog, t
from bot.messages import Actor, ChatRef
from tests.chat import TOGGLE, PickerPlayer, fake_service, flat, toggles

GAME = engine.get("canasta")
GROUP = ChatRef("fake", "-200", private=False)
ALI = Actor("fake", "11", "Ali", language="en")
MONA = Actor("fake", "12", "Mona", language="en")


def actions(keyboard) -> dict[str, object]:
    return {button.label: button for button in flat(keyboard) if not TOGGLE.match(button.label)}


def duo(hands, **layout):
    """A duo hand from a layout; seat 0 moves first (dealer 1)."""
    return GAME.new(2, {"variant": "duo"}, layout={"hands": hands, "dealer": 1, **layout})


def drawn(state):
    """The state after seat to move drew its card."""
    return GAME.apply(state, GAME.to_move(state), "draw")


def press_toggles(view, legal, positions, pick=None):
    for position in positions:
        pick = toggles(UI.rack_buttons(view, legal, "en", pick))[position].arg
    return pick


# ---- the picking state ---------------------------------------------------------------------------------------
def test_pick_round_trip_and_stale_or_malformed_states():
    hand = ["4D", "4C", "7H", "7S", "KH", "X"]
    state = Pick(sort="s", selected=frozenset({0, 5}), staged=((2, 3),))
    text = state.encode(hand)
    assert ":" not in text and len(text) <= MAX_PICK
    assert Pick.decode(text, hand) == state
    # Another hand (a timer played for the seat): the selection is dropped, the sort order kept.
    assert Pick.decode(text, hand[:-1]) == Pick(sort="s")
    for bad in ("", "z", "r", "r" + fingerprint(hand) + "zz", "r" + fingerprint(hand) + "1.00",
                "r" + fingerprint(hand) + "40", "r" + fingerprint(hand) + "1.!"):
        decoded = Pick.decode(bad, hand)
        assert not decoded.selected and not decoded.staged
    # A card both selected and staged counts as staged only.
    both = Pick.decode("r" + fingerprint(hand) + "4.23", hand)
    assert both.selected == frozenset() and both.staged == ((2, 3),)


def test_long_hand_fits_telegram_limits():
    deck = [c for c in engine.canasta.cards.DECK if c not in ("3H", "3D")]
    hand = engine.canasta.cards.sort_cards(random.Random(3).sample(deck, 60))
    view = {"hand": hand, "phase": "play", "team": 0, "opened": [True, True], "melds": [], "must_use": None}
    pick = Pick(selected=frozenset(range(0, 60, 2))).encode(hand)
    keyboard = UI.rack_buttons(view, [], "en", pick)
    assert len(flat(keyboard)) <= 100
    for button in flat(keyboard):
        if button.kind == "pick":
            assert len(button.arg) <= MAX_PICK
            callbacks.encode("p", 99999, 99999, button.arg)  # raises when over 64 bytes


# ---- the picker ----------------------------------------------------------------------------------------------
def opened_turn():
    """Seat 0 (team 0, opened with kings as meld 1) has drawn: 7H 7S 7D melds, KD adds, anything discards."""
    state = duo([["7H", "7S", "7D", "KD", "9C", "X", "5S"], ["4H", "4S", "5D", "6C", "8C", "9S", "QC"]],
                melds=[{"team": 0, "cards": ["KH", "KS", "KC"]}, {"team": 1, "cards": ["JH", "JS", "JC"]}],
                stock=["6D", "8H", "TC"], discard=["QH"])
    state = drawn(state)
    return state, GAME.view(state, 0), GAME.legal_moves(state, 0)


def test_toggle_marks_and_unmarks_a_card_and_the_picture_selection():
    state, view, legal = opened_turn()
    keyboard = UI.rack_buttons(view, legal, "en", None)
    hand = view["hand"]
    assert sorted(toggles(keyboard)) == list(range(len(hand)))
    assert all(f"{p + 1}. {card_label(hand[p])}" == b.label for p, b in toggles(keyboard).items())
    pick = toggles(keyboard)[2].arg
    keyboard = UI.rack_buttons(view, legal, "en", pick)
    assert toggles(keyboard)[2].label.startswith("✓ 3. ")
    assert UI.selected(view, pick) == (2,)
    again = toggles(keyboard)[2].arg
    assert UI.selected(view, again) == ()
    assert not toggles(UI.rack_buttons(view, legal, "en", again))[2].label.startswith("✓")


def test_sort_toggles_order_keeps_numbers_and_selection():
    state, view, legal = opened_turn()
    hand = view["hand"]
    pick = press_toggles(view, legal, [0])
    sort = actions(UI.rack_buttons(view, legal, "en", pick))[t("en", "rummy.sort_suit")]
    by_suit = UI.rack_buttons(view, legal, "en", sort.arg)
    shown = [int(TOGGLE.match(b.label).group(1)) - 1 for b in flat(by_suit) if TOGGLE.match(b.label)]
    suits = [hand[p][1] if hand[p] != "X" and hand[p][0] != "2" else "~" for p in shown]
    assert suits == sorted(suits, key=lambda s: "SHDC~".index(s)) and sorted(shown) == list(range(len(hand)))
    assert UI.selected(view, sort.arg) == (0,)  # the selection survives the sort
    back = actions(by_suit)[t("en", "rummy.sort_rank")]
    shown = [int(TOGGLE.match(b.label).group(1)) - 1 for b in flat(UI.rack_buttons(view, legal, "en", back.arg))
             if TOGGLE.match(b.label)]
    assert shown == list(range(len(hand)))


def test_clear_is_offered_only_with_a_selection_and_empties_it():
    state, view, legal = opened_turn()
    assert t("en", "rummy.clear") not in actions(UI.rack_buttons(view, legal, "en", None))
    pick = press_toggles(view, legal, [0, 1])
    clear = actions(UI.rack_buttons(view, legal, "en", pick))[t("en", "rummy.clear")]
    assert UI.selected(view, clear.arg) == ()


def test_offered_actions_follow_the_selection_and_the_legal_list():
    state, view, legal = opened_turn()
    hand = view["hand"]
    at = {card: hand.index(card) for card in hand}
    # Three sevens: one meld, exactly the engine's string, plus no discard.
    pick = press_toggles(view, legal, [at["7S"], at["7H"], at["7D"]])
    offered = actions(UI.rack_buttons(view, legal, "en", pick))
    melds = [b for b in offered.values() if b.kind == "move" and b.move.startswith("meld")]
    assert [b.move for b in melds] == ["meld 7S 7H 7D"] and "meld 7S 7H 7D" in legal
    assert not any(b.move.startswith("discard") for b in offered.values())
    assert t("en", "rummy.stage") not in offered  # the team has opened: melds go down one by one
    # KD with a wild: add to the kings (meld 1), never to the other team's jacks (meld 2).
    pick = press_toggles(view, legal, [at["KD"], at["X"]])
    adds = [b.move for b in actions(UI.rack_buttons(view, legal, "en", pick)).values() if b.move.startswith("add")]
    assert adds == ["add KD X to 1"] and adds[0] in legal
    # One card: discard it (and a single king may also go onto meld 1).
    pick = press_toggles(view, legal, [at["9C"]])
    moves = [b.move for b in actions(UI.rack_buttons(view, legal, "en", pick)).values() if b.kind == "move"]
    assert moves == ["discard 9C"]
    # Two cards of different ranks: nothing to play.
    pick = press_toggles(view, legal, [at["9C"], at["5S"]])
    assert not [b for b in actions(UI.rack_buttons(view, legal, "en", pick)).values() if b.kind == "move"]
    # Every offered move the legal list settles is legal; applying it through parse_move works.
    state2 = GAME.apply(state, 0, GAME.parse_move(state, 0, "meld 7S 7H 7D"))
    assert len(GAME.view(state2, 0)["melds"]) == 3


def test_draw_step_buttons_name_the_cards_a_take_would_use():
    state = duo([["7H", "7S", "9C", "5S"], ["4H", "4S", "5D", "6C"]], stock=["6D", "8H"], discard=["7D", "QC"],
                melds=[{"team": 0, "cards": ["KH", "KS", "KC"]}])
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    keyboard = UI.rack_buttons(view, legal, "en", None)
    moves = {b.move: b.label for b in flat(keyboard)}
    assert set(moves) == set(legal) == {"draw", "take"}
    assert "with 7♠ 7♥" in moves["take"] and "(2 cards)" in moves["take"]
    assert "(2 cards left)" in moves["draw"]


def test_several_melds_opening_built_by_setting_aside():
    # 4s (15) + 5s (15) + 6s (15) + 7s (15) = 60 >= 50: no single meld reaches the minimum.
    hand = ["4H", "4S", "4D", "5H", "5S", "5D", "6H", "6S", "6D", "7H", "7S", "7C", "9C"]
    state = drawn(duo([hand, ["8H", "8S", "8D", "JC"]], stock=["QD", "TC", "TH"], discard=["KH"]))
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    at = {card: view["hand"].index(card) for card in hand}
    pick = press_toggles(view, legal, [at["4H"], at["4S"], at["4D"]])
    offered = actions(UI.rack_buttons(view, legal, "en", pick))
    assert offered["Meld 4♠ 4♥ 4♦"].move == "meld 4S 4H 4D"  # offered although short: the engine says why
    with pytest.raises(engine.IllegalMove, match="50 points"):
        GAME.parse_move(state, 0, "meld 4S 4H 4D")
    pick = offered[t("en", "rummy.stage")].arg
    assert UI.selected(view, pick) == tuple(sorted([at["4H"], at["4S"], at["4D"]]))
    keyboard = UI.rack_buttons(view, legal, "en", pick)
    assert all(toggles(keyboard)[p].label.startswith("📌") for p in (at["4H"], at["4S"], at["4D"]))
    pick = press_toggles(view, legal, [at["5H"], at["5S"], at["5D"]], pick)
    pick = actions(UI.rack_buttons(view, legal, "en", pick))[t("en", "rummy.stage")].arg
    pick = press_toggles(view, legal, [at["6H"], at["6S"], at["6D"]], pick)
    pick = actions(UI.rack_buttons(view, legal, "en", pick))[t("en", "rummy.stage")].arg
    pick = press_toggles(view, legal, [at["7H"], at["7S"], at["7C"]], pick)  # the selection joins "lay all"
    lay = actions(UI.rack_buttons(view, legal, "en", pick))[t("en", "rummy.lay_all", n=4)]
    assert lay.move == "meld 4S 4H 4D | 5S 5H 5D | 6S 6H 6D | 7S 7H 7C"
    after = GAME.apply(state, 0, GAME.parse_move(state, 0, lay.move))
    assert [m["rank"] for m in GAME.view(after, 0)["melds"]] == ["4", "5", "6", "7"]
    # Pressing a staged card puts its whole meld back.
    unstage = toggles(UI.rack_buttons(view, legal, "en", pick))[at["5S"]].arg
    assert Pick.decode(unstage, view["hand"]).staged == Pick.decode(pick, view["hand"]).staged[::2]


def test_after_a_take_the_top_card_joins_the_melds_built_with_the_picker():
    state = duo([["7H", "7S", "9C", "5S", "KH", "KS", "KD"], ["4H", "4S", "5D", "6C"]], stock=["6D", "8H"],
                discard=["7D", "QC", "TC"], melds=[{"team": 0, "cards": ["AH", "AS", "AC"]}])
    state = GAME.apply(state, 0, "take")
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    keyboard = UI.rack_buttons(view, legal, "en", None)
    direct = [b.move for b in flat(keyboard) if b.kind == "move"]
    assert direct[: len(legal)] == legal  # the forced moves, one button each, first
    hand = view["hand"]
    pick = press_toggles(view, legal, [hand.index("7H"), hand.index("7S"), hand.index("KH"), hand.index("KS"),
                                       hand.index("KD")][:2])
    meld = [b for b in actions(UI.rack_buttons(view, legal, "en", pick)).values() if b.move.startswith("meld")]
    assert meld[0].move == "meld 7S 7H 7D"
    assert "7♦" in UI.describe_rack(view, "en") and "QC" not in UI.describe_table(GAME.view(state, None), "en",
                                                                                 ["A", "B"])


def classic_ask_state():
    """classic4: seat 0's team holds a canasta of kings; seat 0 can go out by melding 7s and discarding."""
    hands = [["7H", "7S", "7D", "9C"], ["4H", "4S", "5D", "6C"], ["8H", "8S", "QD", "JC"], ["5H", "6S", "TD", "TS"]]
    state = GAME.new(4, {}, layout={
        "hands": hands, "dealer": 3, "stock": ["KD", "8D", "TC", "4C"], "discard": ["QH"],
        "melds": [{"team": 0, "cards": ["KH", "KS", "KC", "KD", "KH", "KS", "KC"]}]})
    return drawn(state)


def test_ask_and_answer_buttons_and_their_descriptions():
    state = classic_ask_state()
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    assert "ask" in legal
    ask = actions(UI.rack_buttons(view, legal, "en", None))[t("en", "canasta.ask")]
    assert ask.move == "ask"
    state = GAME.apply(state, 0, "ask")
    partner = GAME.to_move(state)
    assert partner == 2
    pview, plegal = GAME.view(state, 2), GAME.legal_moves(state, 2)
    keyboard = UI.rack_buttons(pview, plegal, "en", None)
    assert [b.move for b in flat(keyboard)] == ["answer yes", "answer no"]
    assert "partner" in flat(keyboard)[0].label.lower()
    assert t("en", "canasta.rack_asked") in UI.describe_rack(pview, "en")
    assert "Ali asked" in UI.describe_table(GAME.view(state, None), "en", ["Ali", "B", "Mona", "D"])
    state = GAME.apply(state, 2, "answer yes")
    assert t("en", "canasta.rack_yes") in UI.describe_rack(GAME.view(state, 0), "en")
    assert UI.turn_prompt(GAME.view(state, 0), "en") == t("en", "canasta.prompt.play")
    assert UI.turn_prompt(pview, "en") == t("en", "canasta.prompt.answer")
    assert UI.describe_move("ask", "en") == "asked their partner: may I go out?"
    assert UI.describe_move("answer yes", "en") == "answered their partner: yes, go out"
    assert UI.describe_move("answer no", "ar") == t("ar", "canasta.m.answer_no")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_describe_move_covers_every_move_kind(lang):
    moves = ["draw", "take", "pass", "meld 7S 7H X | KH KD KC", "add 7D 2C to 3", "discard TH", "ask",
             "answer yes", "answer no"]
    texts = [UI.describe_move(move, lang) for move in moves]
    assert all(text and text != move and "{" not in text for text, move in zip(texts, moves, strict=True))
    assert len(set(texts)) == len(texts)
    assert "🃏" in texts[3] and "10♥" in texts[5] and "3" in texts[4]


def test_table_text_is_public_and_score_lines_name_the_sides():
    state, view, legal = opened_turn()
    public = GAME.view(state, None)
    text = UI.describe_table(public, "en", ["Ali", "Bot"])
    hands = GAME.view(state, 0)["hand"] + GAME.view(state, 1)["hand"]
    assert "X" in hands and "KD" in hands
    for card in hands:  # none of these lies on the table: the text must not show them
        assert card_label(card) not in text
    assert "#1 K" in text and "#2 J" in text and "discard pile Q♥ (1 card)" in text
    assert UI.score_line(public, "en", ["Ali", "Bot"]) == "Ali: 0 · Bot: 0"
    four = GAME.view(classic_ask_state(), None)
    assert UI.score_line(four, "en", ["A", "B", "C", "D"]) == "A & C: 0 · B & D: 0"
    assert "natural canasta" in UI.describe_table(four, "en", ["A", "B", "C", "D"])


def test_catalogs_have_rules_options_and_every_canasta_key_in_both_languages():
    en, ar = catalog("en"), catalog("ar")
    ours = [k for k in en if k.startswith(("canasta.", "rummy."))]
    assert len(ours) > 40 and all(k in ar and ar.get(k) for k in ours)
    for key in ("opt.variant.classic4", "opt.variant.duo", "opt.target.2500", "opt.target.5000"):
        assert en.get(key) and ar.get(key)
    assert "canasta" in playable_games() and ui_for("canasta") is UI
    assert meld_text([["KH", "X", "KD"], ["7S", "7H", "7D"]]) == "meld 7S 7H 7D | KH KD X"


# ---- whole matches through the service -----------------------------------------------------------------------
@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", seed=11) as (service, transport, store, _):
        yield service, transport, store


def choose(view: dict, legal: list[str]) -> str:
    """The test's player: answer yes, draw, meld the top card the forced way, meld/add what is offered, else
    discard; asks when it can (so partners see the question)."""
    if "answer yes" in legal:
        return "answer yes"
    if view["phase"] == "draw":
        return "draw" if "draw" in legal else legal[0]
    if view["must_use"]:
        return legal[0]
    if "ask" in legal and view.get("ask") is None:
        return "ask"
    lays = [m for m in legal if m.startswith(("meld", "add"))]
    if lays:
        return max(lays, key=lambda m: (m.count("|"), len(m.split())))
    return next(m for m in legal if m.startswith("discard"))


class Player(PickerPlayer):
    """Presses buttons in a private chat, checking every keyboard on the way and each card's tick."""

    check_ticks = True

    async def play(self, move: str, view: dict) -> None:
        words = move.split()
        if words[0] in ("draw", "take", "pass", "ask", "answer") or view["must_use"]:
            label = {"draw": "🂠", "pass": t("en", "canasta.pass"), "ask": t("en", "canasta.ask"),
                     "answer": t("en", f"canasta.answer_{words[-1]}")}.get(words[0])
            if words[0] == "take":
                label = "Take the pile"
            if label is None:  # a forced move after a take: its own button, labelled with its cards
                label = UI.button_label(move, "en")
            text = await self.press(self.find(label))
        elif words[0] == "discard":
            await self.toggle(view, [words[1]])
            text = await self.press(self.find(f"Discard {card_label(words[1])}"))
        elif words[0] == "add":
            await self.toggle(view, words[1:-2])
            text = await self.press(self.find(t("en", "rummy.add", n=words[-1])))
        else:
            text = await self.lay(view, move)
        assert text.startswith("✓ You "), text


async def play_turns(service, transport, store, match_id, players: dict[int, Player], limit: int) -> int:
    """Human moves until the match ends or `limit` moves were made; returns the number made."""
    made = 0
    while made < limit:
        match = await store.get_match(match_id)
        if match.status != "active":
            break
        state = GAME.from_json(match.snapshot)
        seat = GAME.to_move(state)
        assert seat in players, "bots never wait for a human press"
        view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
        player = players[seat]
        assert player.keyboard(), "the human to move has buttons"
        move = choose(view, legal)
        await player.play(move, view)
        after = await store.get_match(match_id)
        assert after.version > match.version
        record = (await store.moves(match_id))[match.version]
        assert (record.seat, record.move) == (seat, move)
        made += 1
    return made


async def test_whole_duo_match_human_against_a_bot_by_buttons(setup):
    service, transport, store = setup
    await service.command(ALI, GROUP, "lang", ["en"])  # racks follow the player's language (else the chat's)
    await service.command(ALI, GROUP, "new", ["canasta", "variant=duo", "target=2500"])
    match = await store.lobby_or_active_match("fake", "-200")
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    ali = Player(service, transport, ALI)
    made = await play_turns(service, transport, store, match.id, {0: ali}, limit=3000)
    match = await store.get_match(match.id)
    assert match.status == "finished", made
    state = GAME.from_json(match.snapshot)
    assert max(GAME.result(state)["scores"]) >= 2500
    # Replaying the stored moves from the seed gives the same final state.
    replay = GAME.new(2, match.options, seed=match.seed)
    for record in await store.moves(match.id):
        replay = GAME.apply(replay, record.seat, record.move)
    assert GAME.to_json(replay) == match.snapshot
    assert ali.presses > made  # melds and discards took several presses


async def test_classic4_whole_match_two_humans_two_bots_by_buttons(setup):
    service, transport, store = setup
    for actor in (ALI, MONA):
        await service.command(actor, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["canasta"])
    match = await store.lobby_or_active_match("fake", "-200")
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "random"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    players = {0: Player(service, transport, ALI), 2: Player(service, transport, MONA)}  # partners
    made = await play_turns(service, transport, store, match.id, players, limit=1500)
    match = await store.get_match(match.id)
    assert match.status == "finished", made
    records = await store.moves(match.id)
    print("classic4 through the service:", made, "human moves,", len(records), "in all,",
          players[0].presses + players[2].presses, "presses")
    human = [(r.seat, r.move) for r in records if r.seat in (0, 2)]
    assert any(m.startswith("meld") for _, m in human) and any(m.startswith("add") for _, m in human)
    asked = [i for i, r in enumerate(records) if r.move == "ask" and r.seat in (0, 2)]
    assert asked and all(records[i + 1].seat == (records[i].seat + 2) % 4 for i in asked)
    assert all(records[i + 1].move == "answer yes" for i in asked)  # the human partner pressed Yes
    table = transport.latest("-200")  # the group speaks Arabic: the team is named in the chat's language
    assert t("ar", "team", a="Ali", b="Mona") in table.text


def test_sort_order_reaches_the_picture_and_survives_a_move():
    from bot.games.canasta import UI
    from bot.games.rummy import Pick

    view = {"hand": ["KS", "4H", "KD", "5C", "5H"]}  # no wild cards: those sort last
    by_suit = Pick(sort="s", selected=frozenset({1})).encode(view["hand"])
    order = UI.rack_view(view, by_suit)["order"]
    assert [view["hand"][p][1] for p in order] == sorted((c[1] for c in view["hand"]), key="SHDC".index)
    kept = UI.pick_after_move(by_suit)
    assert UI.pick_of(view, kept) == Pick(sort="s")
    assert UI.pick_after_move(None) is None


# ---- concealed going out after a stock draw (rules file, "Going out") ---------------------------------------
FOURS = ["4S", "4S", "4H", "4H", "4D", "4D", "4C"]
FIVES6 = ["5S", "5S", "5H", "5H", "5D", "5D"]
BOTH_OUT = "meld 4S 4S 4H 4H 4D 4D 4C | 5S 5S 5H 5H 5D 5D 5C"


def concealed_layout(discard: list[str]) -> dict:
    """duo at 3000 (minimum 120): two canastas of 4s and 5s are 70 points; KC is the final discard."""
    return {"hands": [FOURS + FIVES6 + ["KC"], ["9S", "9H", "JC", "QS"]], "dealer": 1, "scores": [3000, 0],
            "stock": ["5C", "TD", "TH", "6C", "7C"], "discard": discard}


def test_picker_offers_the_concealed_going_out_after_a_stock_draw():
    state = drawn(GAME.new(2, {"variant": "duo"}, layout=concealed_layout(["QC"])))
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    assert BOTH_OUT in legal and view["min_meld"][0] == 120
    keyboard = UI.rack_buttons(view, legal, "en", None)
    direct = [b for b in flat(keyboard) if b.kind == "move" and b.label.startswith("🏁")]
    assert [b.move for b in direct] == [BOTH_OUT]
    assert direct[0].label == t("en", "canasta.go_out_concealed", melds="4♠ 4♠ 4♥ 4♥ 4♦ 4♦ 4♣ | 5♠ 5♠ 5♥ 5♥ 5♦ 5♦ 5♣")
    # The same move is built with the picker: set the 4s aside, tick the 5s, lay all.
    hand = view["hand"]
    fours = [p for p, card in enumerate(hand) if card[0] == "4"]
    fives = [p for p, card in enumerate(hand) if card[0] == "5"]
    pick = press_toggles(view, legal, fours)
    pick = actions(UI.rack_buttons(view, legal, "en", pick))[t("en", "rummy.stage")].arg
    pick = press_toggles(view, legal, fives, pick)
    lay = actions(UI.rack_buttons(view, legal, "en", pick))[t("en", "rummy.lay_all", n=2)]
    assert lay.move == BOTH_OUT
    # Before drawing, and for a side that has opened, there is no such button.
    before = GAME.new(2, {"variant": "duo"}, layout=concealed_layout(["QC"]))
    assert not [b for b in flat(UI.rack_buttons(GAME.view(before, 0), GAME.legal_moves(before, 0), "en", None))
                if b.label.startswith("🏁")]
    state, view, legal = opened_turn()
    assert not UI.concealed_outs(view, legal)
    assert "none if you draw from the stock" in UI.describe_rack(GAME.view(drawn(before), 0), "en")


def test_picker_offers_no_pile_take_below_the_minimum_for_a_concealed_going_out():
    # The 5 on the pile would complete the same two canastas, but 70 < 120 with the taken pile.
    state = GAME.new(2, {"variant": "duo"}, layout=concealed_layout(["5C"]))
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    assert legal == ["draw"]
    assert [b.move for b in flat(UI.rack_buttons(view, legal, "en", None))] == ["draw"]
    with pytest.raises(engine.IllegalMove, match="120"):
        GAME.parse_move(state, 0, "take")


async def start_duo_with_layout(service, store, monkeypatch, layout):
    dealt = GAME.new
    monkeypatch.setattr(GAME, "new", lambda players, options=None, *, seed=None, layout_=None, **_:
                        dealt(players, options, seed=seed, layout=layout))
    await service.command(ALI, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["canasta", "variant=duo"])
    match = await store.lobby_or_active_match("fake", "-200")
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    assert match.status == "active" and GAME.to_move(GAME.from_json(match.snapshot)) == 0
    return match


async def test_chat_concealed_going_out_after_a_stock_draw_by_buttons(setup, monkeypatch):
    service, transport, store = setup
    match = await start_duo_with_layout(service, store, monkeypatch, concealed_layout(["QC"]))
    ali = Player(service, transport, ALI)
    assert (await ali.press(ali.find("🂠"))).startswith("✓ You ")
    text = await ali.press(ali.find(t("en", "canasta.go_out_concealed", melds="")))
    assert text.startswith("✓ You ")
    state = GAME.from_json((await store.get_match(match.id)).snapshot)
    assert state["hands"][0] == ["KC"] and [m["rank"] for m in state["melds"]] == ["4", "5"]
    await ali.toggle(GAME.view(state, 0), ["KC"])
    assert (await ali.press(ali.find(f"Discard {card_label('KC')}"))).startswith("✓ You ")
    records = await store.moves(match.id)
    assert [(r.seat, r.move) for r in records[:3]] == [(0, "draw"), (0, BOTH_OUT), (0, "discard KC")]
    replay = GAME.new(2, match.options, seed=match.seed)
    for record in records[:3]:
        replay = GAME.apply(replay, record.seat, record.move)
    hand = replay["last_hand"]
    assert hand["round"] == 1 and hand["went_out"] == 0 and hand["concealed"]
    assert replay["history"] == [[70 + 1000 + 200, -(10 + 10 + 10 + 10)]]  # 9S 9H JC QS left to the bot


async def test_chat_refuses_a_pile_take_below_the_minimum(setup, monkeypatch):
    service, transport, store = setup
    match = await start_duo_with_layout(service, store, monkeypatch, concealed_layout(["5C"]))
    ali = Player(service, transport, ALI)
    labels = [b.label for row in ali.keyboard() for b in row]
    assert not [label for label in labels if label.startswith("Take the pile")]
    reply = await service.command(ALI, ChatRef("fake", ALI.user_id, private=True), "m", ["take"])
    assert reply.alert and "120" in reply.text, reply.text
    after = await store.get_match(match.id)
    assert after.version == match.version  # nothing was played


def test_a_take_onto_ones_own_meld_names_the_meld_on_its_button():
    """rules/canasta.md: an unfrozen pile may be taken when its top card can go onto one of the team's melds; the
    button names the top card, the pile's size and which meld (#2, the queens) the top card goes onto."""
    state = duo([["7H", "9C", "5S", "4D"], ["4H", "4S", "5D", "6C"]], stock=["6D", "8H"], discard=["QC", "KD"],
                melds=[{"team": 0, "cards": ["KH", "KS", "KC"]}, {"team": 0, "cards": ["QH", "QS", "QD"]}])
    keyboard = UI.rack_buttons(GAME.view(state, 0), GAME.legal_moves(state, 0), "en", None)
    assert {b.move: b.label for b in flat(keyboard)}["take"] == "Take the pile: Q♣ (2 cards) onto meld 2"


def test_an_arabic_hand_sheet_labels_every_row_in_arabic():
    """The hand's sheet in Arabic: every row label comes from the Arabic catalog, the points and total too."""
    detail = {"went_out": 0, "concealed": False, "points": [415, -65], "totals": [415, -65],
              "detail": [{"canastas": 300, "red3s": 100, "going_out": 100, "melded": 90, "in_hand": -175},
                         {"canastas": 0, "red3s": 0, "going_out": 0, "melded": 40, "in_hand": -105}],
              "counts": [{"mixed": 1, "red3s": 1, "melded": 9, "left": 3}, {"melded": 4, "left": 5}]}
    sheet = UI.round_sheet(detail, 1, {}, ["علي", "منى"], ["علي", "منى"], "ar")
    keys = ["natural", "mixed", "red3s", "going_out", "melded", "left"]
    assert [label for label, _ in sheet.rows] == [t("ar", f"canasta.sheet.{key}") for key in keys] + [
        t("ar", "sheet.points"), t("ar", "sheet.total")]
    assert t("ar", "sheet.total") != t("en", "sheet.total")


def test_an_addition_is_told_in_the_readers_language():
    assert UI.describe_move("add 7H 7S to 2", "ar") == t("ar", "canasta.m.add", cards="7♥ 7♠", n="2") != \
        UI.describe_move("add 7H 7S to 2", "en")
