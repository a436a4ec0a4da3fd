"""Konkan (cards) in chat, through the service and its fake transport (issue 25): a button never offers a move the
engine refuses — a joker freed by a swap has no "Discard" button (a joker is never discarded)."""

from __future__ import annotations

import pytest

import engine
from bot import callbacks
from bot.games.konkan_cards import UI, card_label
from bot.i18n import t
from bot.messages import Actor, ChatRef
from renderers.labels import LABELS as RENDER_LABELS
from tests.chat import PickerPlayer, fake_service, flat

GAME = engine.get("konkan_cards")
GROUP = ChatRef("fake", "-310", private=False)
ALI = Actor("fake", "31", "Ali", language="en")


@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", seed=5) as (service, transport, store, _):
        yield service, transport, store


async def start_with(service, store, monkeypatch, layout: dict) -> int:
    """Ali against a normal bot at a Konkan table dealt `layout`; the match id."""
    dealt = GAME.new
    monkeypatch.setattr(GAME, "new", lambda players, options=None, *, seed=None, layout_=None, **_:
                        dealt(players, options, seed=seed, layout=layout))
    await service.command(ALI, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["konkan_cards"])
    match = await store.lobby_or_active_match("fake", GROUP.chat_id)
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    return match.id


class Player(PickerPlayer):
    def labels(self) -> list[str]:
        return [button.label for button in flat(self.keyboard())]


async def test_a_joker_freed_by_a_swap_offers_no_discard_button(setup, monkeypatch):
    service, transport, store = setup
    melds = [{"seat": 1, "cards": ["9S", "X:TS", "JS"]}, {"seat": 0, "cards": ["KS", "KH", "KD"]}]
    match_id = await start_with(service, store, monkeypatch, {
        "hands": [["5H", "6H", "TS", "2C"], ["4C", "3C", "8D"]], "stock": ["8S", "QD", "4D"], "dealer": 0,
        "melds": melds})
    ali = Player(service, transport, ALI)
    assert (await ali.press(ali.find("🂠"))).startswith("✓ You ")
    state = GAME.from_json((await store.get_match(match_id)).snapshot)
    await ali.toggle(GAME.view(state, 0), ["TS"])
    assert (await ali.press(ali.find(t("en", "konkan.swap", n=1), exact=True))).startswith("✓ You ")
    state = GAME.from_json((await store.get_match(match_id)).snapshot)
    view = GAME.view(state, 0)
    assert "X" in view["hand"]
    await ali.toggle(view, ["X"])
    ticked = ali.find(f"✓ {view['hand'].index('X') + 1}. 🃏", exact=True)
    assert t("en", "rummy.discard", card=card_label("X")) not in ali.labels(), ali.labels()
    await ali.press(ticked)  # untick the joker, tick a plain card: that one may be discarded
    await ali.toggle(view, ["2C"])
    assert (await ali.press(ali.find(t("en", "rummy.discard", card="2♣"), exact=True))).startswith("✓ You ")


async def test_after_committing_the_prompt_and_take_button_do_not_ask_to_meld_the_take(setup, monkeypatch):
    """Issue 25, defect 5 (konkan-cards.md: "After committing you may take from the discard pile without
    melding"): once committed, the draw step's prompt and its take button say so, not "meld it now"."""
    service, transport, store = setup
    match_id = await start_with(service, store, monkeypatch, {
        "hands": [["5H", "6H", "KC", "9S"], ["4C", "3C", "9D", "2S"]], "stock": ["8S", "QD", "4D", "7C"],
        "dealer": 0, "round": 5})
    ali = Player(service, transport, ALI)
    state = GAME.from_json((await store.get_match(match_id)).snapshot)
    top = card_label(GAME.view(state, 0)["discard_top"])
    assert transport.latest(ALI.user_id).text == t("en", "konkan.prompt.draw_commit")
    assert (await ali.press(ali.find(t("en", "konkan.commit"), exact=True))).startswith("✓ You ")
    rack = transport.latest(ALI.user_id)
    assert rack.text == t("en", "konkan.prompt.draw_committed")
    assert "meld it now" not in rack.text
    labels = ali.labels()
    assert t("en", "konkan.take_committed", top=top) in labels and t("en", "konkan.take", top=top) not in labels
    assert (await ali.press(ali.find(t("en", "konkan.take_committed", top=top), exact=True))).startswith("✓ You ")
    assert transport.latest(ALI.user_id).text == t("en", "konkan.prompt.committed")
    for lang in ("en", "ar"):
        assert t(lang, "konkan.take_committed", top="7♥") != t(lang, "konkan.take", top="7♥")
        assert t(lang, "konkan.prompt.draw_committed") != "konkan.prompt.draw_committed"


def _group_texts(transport) -> str:
    return "\n".join(message.text for (chat, _), message in transport.current.items() if chat == GROUP.chat_id)


async def test_an_extra_round_says_so_instead_of_round_6_of_5(setup, monkeypatch):
    """Issue 25, defect 6 (konkan-cards.md "Match": tied lowest totals after five rounds play an extra round): the
    table caption and the table text say it is an extra round, never "round 6 of 5", in both languages; the
    picture's label names round 6 as extra."""
    service, transport, store = setup
    match_id = await start_with(service, store, monkeypatch, {
        "hands": [["5H", "6H", "KC", "9S"], ["4C", "3C", "9D", "2S"]], "stock": ["8S", "QD", "4D", "7C"],
        "dealer": 0, "round": 6, "scores": [120, 120]})
    state = GAME.from_json((await store.get_match(match_id)).snapshot)
    view = GAME.view(state, None)
    assert (view["round"], view["rounds"]) == (6, 5)
    shown = _group_texts(transport)
    assert t("ar", "konkan.extra_round_note", n=6, total=5) in shown, shown  # the group speaks Arabic
    assert "6 من 5" not in shown
    for lang, wrong in (("en", "round 6 of 5"), ("ar", "الجولة 6 من 5")):
        text = UI.describe_table(view, lang, ["Ali", "Bot"])
        assert text.splitlines()[0] == t(lang, "konkan.table_extra_round", n=6, minimum=51) and wrong not in text
        assert UI.round_notes(view, lang, ["Ali", "Bot"]) == [t(lang, "konkan.extra_round_note", n=6, total=5)]
    assert UI.round_notes({**view, "round": 5}, "en", ["Ali", "Bot"]) == []
    assert RENDER_LABELS["en"]["konkan.extra_round"].format(n=6) == "Round 6 (extra)"
    assert RENDER_LABELS["ar"]["konkan.extra_round"].format(n=6) == "الجولة 6 (إضافية)"


async def test_score_names_no_target_where_the_match_has_none(setup, monkeypatch):
    """`/score` of a Konkan match (five rounds, no target score) has no "(target —)" in its title."""
    service, transport, store = setup
    await start_with(service, store, monkeypatch, {
        "hands": [["5H", "6H", "KC", "9S"], ["4C", "3C", "9D", "2S"]], "stock": ["8S", "QD", "4D", "7C"], "dealer": 0})
    reply = await service.command(ALI, GROUP, "score", [])
    text = reply.text if reply is not None and reply.text else transport.latest(GROUP.chat_id).text
    assert text.splitlines()[0] == t("en", "score.title_no_target", game=t("en", "game.konkan_cards")), text
    assert "—)" not in text
