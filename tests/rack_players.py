"""Players who play a rummy rack (Canasta, Konkan with cards, Konkan with tiles) only by pressing what their private
rack shows, on Telegram (inline buttons under the rack picture) or Discord (the components of one ephemeral).

The platform part is how a labelled control is found and pressed; the game part — which presses a move takes
(tick these cards, stage a meld, press the action) — is the same on both platforms, so each game's script is
written once here and the Telegram and Discord match tests differ only in the player they hand it to.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bot.games import ui_for
from bot.i18n import t
from tests.dc_harness import EPHEMERAL, FakeDiscord, answers, assert_answered, click, controls
from tests.tg_harness import Bot, flat_buttons

PINNED = re.compile(r"^📌 (?=\d)")  # a card button of the taken discard is pinned (📌 5. 9♠): matched by its number


def _pick(labels: list[tuple[Any, str]], label: str, exact: bool) -> Any | None:
    """The control labelled exactly `label`, else (unless `exact`) the first whose label starts with it."""
    found = next((control for control, text in labels if text == label), None)
    if found is None and not exact:
        found = next((control for control, text in labels if text.startswith(label)), None)
    return found


class RackPlayer:
    """What both platforms' players share: ticking cards by position and counting presses."""

    presses = 0

    def labels(self) -> list[str]:
        raise NotImplementedError

    async def press(self, label: str, version: int, exact: bool = False) -> str:
        """Press the control labelled `label` on the rack of match version `version`; what the player was told."""
        raise NotImplementedError

    def shows(self, label: str) -> bool:
        return any(PINNED.sub("", text).startswith(label) for text in self.labels())

    async def toggle(self, hand: list[str], codes: list[str], version: int, used: set[int] | None = None, *,
                     label_of: Callable[[str], str] | None = None, check: bool = True) -> None:
        """Tick `codes` (distinct positions for repeated codes; `used`: positions already set aside this move).
        `label_of`: press the whole label "3. 7♥" rather than "3. "; `check`: each press must tick its card."""
        used = set() if used is None else used
        for code in codes:
            position = next(p for p, held in enumerate(hand) if held == code and p not in used)
            used.add(position)
            label = f"{position + 1}. " + (label_of(code) if label_of else "")
            await self.press(label, version)
            if check:
                assert self.shows(f"✓ {label}"), f"{label} not ticked: {self.labels()}"


class TelegramRackPlayer(RackPlayer):
    """A Telegram user who only presses buttons of the newest rack picture in their private chat."""

    def __init__(self, bot: Bot, who: dict[str, Any]) -> None:
        self.bot, self.who = bot, who
        self.presses = 0

    def rack(self) -> tuple[int, list[list[dict[str, Any]]]]:
        found = self.bot.server.rack(self.who["id"])
        assert found is not None, f"{self.who['first_name']} has no rack picture"
        return found

    def labels(self) -> list[str]:
        return [button["text"] for button in flat_buttons(self.rack()[1])]

    def find(self, label: str, exact: bool = False) -> dict[str, Any]:
        buttons = flat_buttons(self.rack()[1])
        button = _pick([(b, PINNED.sub("", b["text"])) for b in buttons], label, exact)
        assert button is not None, (label, [b["text"] for b in buttons])
        return button

    async def press(self, label: str, version: int, exact: bool = False) -> str:
        message_id, _ = self.rack()
        data = self.find(label, exact)["callback_data"]
        assert data.split(":")[2] == str(version), "the rack shows an old version"
        self.presses += 1
        answer = await self.bot.press(self.who, self.who["id"], message_id, data)
        assert not answer.get("show_alert"), answer
        return answer.get("text") or ""


class DiscordRackPlayer(RackPlayer):
    """A Discord user who plays only by clicking the components of their one ephemeral rack, edited in place."""

    def __init__(self, fake: FakeDiscord, adapter: Any, who: dict[str, Any], rack: dict[str, Any]) -> None:
        self.fake, self.adapter, self.who = fake, adapter, who
        self.rack_id = rack["id"]
        self.presses = self.selects = 0

    @property
    def rack(self) -> dict[str, Any]:
        return self.fake.messages[self.rack_id]

    def labels(self) -> list[str]:
        return [control.label for control in controls(self.rack)]

    async def press(self, label: str, version: int, exact: bool = False) -> str:
        """Click the control labelled `label`; the ephemeral's content afterwards (what the user was told)."""
        found = controls(self.rack)
        control = _pick([(c, PINNED.sub("", c.label)) for c in found], label, exact)
        assert control is not None, f"no {label!r} in {[c.label for c in found]}"
        assert control.code.split(":")[2] == str(version), "the rack shows an old version"
        payload = click(self.fake, self.who, self.rack, control)
        calls = await self.fake.feed(self.adapter.client, payload)
        assert_answered(self.fake, payload, calls)
        assert calls[0].payload["type"] == 6, "a click in the ephemeral is a deferred update"
        assert not [text for text in answers(calls) if text.startswith("⚠️")], answers(calls)
        new = [c for c in calls if c.method == "POST" and c.via == "webhook" and not c.path.endswith("/callback")]
        assert not new, "the rack was answered in a new ephemeral instead of being edited in place"
        self.presses += 1
        self.selects += control.value is not None
        assert int(self.rack["flags"]) & EPHEMERAL
        return self.rack["content"]


async def lay_groups(player: RackPlayer, hand: list[str], groups: list[list[str]], version: int, *,
                     label_of: Callable[[str], str] | None = None, check: bool = True) -> str:
    """Stage every group but the last, tick the last and lay them all (one meld: "Meld …")."""
    staged: set[int] = set()
    for group in groups[:-1]:
        await player.toggle(hand, group, version, staged, label_of=label_of, check=check)
        await player.press(t("en", "rummy.stage"), version)
    await player.toggle(hand, groups[-1], version, staged, label_of=label_of, check=check)
    return await player.press(t("en", "rummy.lay_all", n=len(groups)) if len(groups) > 1 else "Meld ", version)


async def play_konkan_cards(player: RackPlayer, move: str, view: dict[str, Any], legal: list[str],
                            version: int) -> None:
    """Konkan with cards: `move` played by presses. A forced use of the taken discard with few ways to do it is
    offered as whole-move buttons; otherwise the player ticks cards (a joker's code is "X" in the hand)."""
    from bot.games.konkan_cards import card_label

    ui = ui_for("konkan_cards")
    words, hand = move.split(), view["hand"]
    codes = ["X" if card.startswith("X") else card for card in words[1:]]
    if words[0] in ("draw", "take"):
        text = await player.press("🂠" if words[0] == "draw" else "Take ", version)
    elif view["must_use"] and len(legal) <= 6:
        text = await player.press(ui.button_label(move, "en"), version, exact=True)
    elif words[0] == "discard":
        await player.toggle(hand, codes[:1], version, check=False)
        text = await player.press(t("en", "rummy.discard", card=card_label(words[1])), version, exact=True)
    elif words[0] in ("add", "swap"):
        await player.toggle(hand, codes[:-2], version, check=False)
        label = t("en", "rummy.add", n=words[-1]) if words[0] == "add" else t("en", "konkan.swap", n=words[-1])
        text = await player.press(label, version, exact=True)
    else:
        groups = [["X" if card.startswith("X") else card for card in part.split()] for part in move[5:].split(" | ")]
        text = await lay_groups(player, hand, groups, version, check=False)
    assert text.startswith("✓ You "), (text, move)


async def play_konkan_tiles(player: RackPlayer, move: str, view: dict[str, Any], version: int, *,
                            full_labels: bool = False) -> None:
    """Konkan with tiles: `move` played by presses (`full_labels`: tick by "3. 🟥7" rather than "3. ")."""
    from bot.games.konkan_tiles import tile_label

    ui = ui_for("konkan_tiles")
    label_of = tile_label if full_labels else None
    words, hand = move.split(), view["hand"]
    bare = [cell.split(":")[0] for cell in words[1:]]
    if words[0] == "option":
        text = await player.press(t("en", f"kt.c.option_{words[1]}"), version, exact=True)
    elif words[0] == "draw":
        text = await player.press("🀫", version)
    elif words[0] == "meld" and " | " in move:
        key = "kt.c.konkan" if view["konkan"][view["seat"]] else "kt.c.open"
        text = await player.press(t("en", key, melds=ui._melds_text(move)), version, exact=True)
    elif words[0] == "meld":
        await player.toggle(hand, bare, version, label_of=label_of)
        text = await player.press("Meld ", version)
    elif words[0] == "discard":
        await player.toggle(hand, bare, version, label_of=label_of)
        text = await player.press(t("en", "rummy.discard", card=tile_label(words[1])), version, exact=True)
    else:
        label = {"add": t("en", "rummy.add", n=words[-1]), "swap": t("en", "kt.c.steal", n=words[-1]),
                 "lock": t("en", f"kt.c.lock_{words[-1]}", n=words[-2])}[words[0]]
        await player.toggle(hand, bare[:-2] if words[0] != "lock" else [words[1]], version, label_of=label_of)
        text = await player.press(label, version, exact=True)
    assert "✓ You " in text, text


def _without(cards: list[str], card: str | None) -> list[str]:
    """`cards` less one copy of `card`."""
    out = list(cards)
    if card in out:
        out.remove(card)
    return out


async def play_canasta(player: RackPlayer, move: str, view: dict[str, Any], version: int, *,
                       full_labels: bool = False) -> None:
    """Canasta: `move` played by presses. After a pile take, the taken top card waits beside the hand: a whole-move
    button is pressed when the rack offers one, else the picker adds the top card to the meld of its rank by itself,
    so only the hand's cards are ticked (`full_labels`: tick by "3. 7♥" rather than "3. ")."""
    from bot.games.canasta import card_label

    ui = ui_for("canasta")
    label_of = card_label if full_labels else None
    words, hand = move.split(), view["hand"]
    top = view.get("must_use")
    direct = {"draw": "🂠", "take": "Take the pile", "pass": t("en", "canasta.pass"), "ask": t("en", "canasta.ask"),
              "answer": t("en", f"canasta.answer_{words[-1]}")}
    if words[0] in direct:
        text = await player.press(direct[words[0]], version)
    elif top and player.shows(ui.button_label(move, "en")):
        text = await player.press(ui.button_label(move, "en"), version)
    elif words[0] == "discard":
        await player.toggle(hand, [words[1]], version, label_of=label_of)
        text = await player.press(f"Discard {card_label(words[1])}", version)
    elif words[0] == "add":
        await player.toggle(hand, _without(words[1:-2], top), version, label_of=label_of)
        text = await player.press(t("en", "rummy.add", n=words[-1]), version)
    else:
        groups = [part.split() for part in move[5:].split(" | ")]
        if top:
            groups = [_without(group, top) if top in group else group for group in groups]
        text = await lay_groups(player, hand, groups, version, label_of=label_of)
    assert text.startswith("✓ You "), text
