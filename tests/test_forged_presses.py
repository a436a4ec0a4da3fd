"""Forged button presses (issue 10): any text a client can put in callback data, up to and beyond Telegram's 64
bytes, is either a code of ours or refused — by `callbacks.decode` with BadAction, and by `Service.press` with the
"not valid" alert to the presser and nothing else (no message anywhere, no table, no crash)."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from bot import callbacks
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store
from tests.fakes import FakeTransport

MALLORY = Actor("fake", "66", "Mallory", language="en")
PRIVATE = ChatRef("fake", "66", private=True)
GROUP = ChatRef("fake", "-100")
NOT_VALID = t("en", "err.bad_button")

# Digits that str.isdigit() accepts and int() refuses or reads differently, and pieces of real codes.
ODD_DIGITS = ["²", "¹", "٣", "۴", "߂", "१", "０", "⑦", "𝟠", "1\u0663", " 1", "1 ", "+1", "-1", "0x1", "1_0", ""]
fields = st.one_of(st.sampled_from(ODD_DIGITS), st.text(max_size=12), st.integers(-5, 10**20).map(str))
forged_codes = st.builds(
    lambda op, parts: ":".join([op, *parts]),
    st.sampled_from(sorted(callbacks.OPS) + ["", "z", "mm", "N"]),
    st.lists(fields, max_size=6),
)
any_text = st.one_of(st.text(max_size=200), st.text(min_size=60, max_size=80), forged_codes)


@given(any_text)
@settings(max_examples=400, deadline=None)
@example("m:1:²:0:0000")
@example("h:²")
@example("c:¹")
@example("n:0:kenza")
@example("x" * 65)
@example("m:" + "9" * 70)
def test_decode_returns_a_code_of_ours_or_refuses(text):
    try:
        action = callbacks.decode(text)
    except callbacks.BadAction:
        return
    parts = text.split(":")
    assert action.op in callbacks.OPS
    assert len(text.encode("utf-8", "surrogatepass")) <= callbacks.MAX_BYTES
    assert parts[1].isascii() and parts[1].isdigit() and action.match_id == int(parts[1])


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One store with an active match in another chat, and one loop, shared by every example (hypothesis runs
    examples in a plain function, so the coroutines are driven on this loop)."""
    loop = asyncio.new_event_loop()

    async def build():
        store = await Store.open(str(tmp_path_factory.mktemp("fuzz") / "db.sqlite"))
        service = Service(store, seed_source=random.Random(3))
        transport = FakeTransport()
        service.attach(transport, images=False)
        owner = Actor("fake", "1", "Ali", language="en")
        await service.command(owner, GROUP, "new", ["kenza"])
        match = await store.lobby_or_active_match("fake", "-100")
        await service.press(owner, GROUP, callbacks.encode("b", match.id, "normal"))
        await service.press(owner, GROUP, callbacks.encode("s", match.id))
        return store, service, transport

    store, service, transport = loop.run_until_complete(build())
    yield loop, store, service, transport
    loop.run_until_complete(store.close())
    loop.close()


def could_be_ours(data: str, version: int, transport: FakeTransport) -> bool:
    """Whether some keyboard of ours may have carried this code (then it is not forged, only someone else's or
    old): a code on a message shown now, or a well-formed move code of an earlier or the current version."""
    shown = {button.data for message in transport.current.values() for row in message.keyboard for button in row}
    if data in shown:
        return True
    try:
        action = callbacks.decode(data)
    except callbacks.BadAction:
        return False
    if action.op in ("q", "z"):  # a queue's buttons (Play now, Leave queue): an old one is stale, not forged
        return True
    if action.op not in ("m", "p", "k") or not callbacks.drawn(action):
        return False
    first = action.args[0]
    if not (first.isascii() and first.isdigit()):
        return False
    if int(first) != version:  # another version's keyboard: "out of date", not forged
        return True
    if action.op == "m":
        index, tag = action.args[1], action.args[2]
        state = tag[1:] if tag.startswith("_") else None
        drawn = re.fullmatch("[0-9a-f]{4}", tag) or (state is not None and state.isascii() and state.isprintable())
        return index.isascii() and index.isdigit() and bool(drawn)
    return action.op == "k"


forged_presses = st.one_of(
    any_text,
    # A real match id in front, then anything: still no code our buttons drew for Mallory.
    st.builds(lambda op, tail: f"{op}:1:{tail}", st.sampled_from(["m", "p", "k", "h", "c", "i"]),
              st.one_of(st.sampled_from(ODD_DIGITS), st.text(max_size=70))),
)


@given(forged_presses)
@settings(max_examples=300, deadline=None)
@example("n:0:kenza")  # the picker's code, pressed in a private chat: no table there
@example("m:1:²:0:0000")
@example("h:²")
@example("c:¹")
@example("p:1:0:²")
@example("m:1:0:٣:0000")
def test_every_forged_press_in_a_private_chat_gets_the_not_valid_alert_only(world, data):
    loop, store, service, transport = world
    before_calls = len(transport.calls)
    match_before = loop.run_until_complete(store.get_match(1))
    assume(not could_be_ours(data, match_before.version, transport))
    reply = loop.run_until_complete(service.press(MALLORY, PRIVATE, data))
    assert reply.text == NOT_VALID and reply.alert and reply.is_error and reply.message is None, (data, reply)
    assert transport.calls[before_calls:] == [], "a forged press made the bot say or draw something"
    after = loop.run_until_complete(store.get_match(1))
    assert after.version == match_before.version
    assert loop.run_until_complete(store.lobby_or_active_match("fake", PRIVATE.chat_id)) is None
