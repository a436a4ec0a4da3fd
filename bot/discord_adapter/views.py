"""Keyboards as Discord components that keep working after a restart.

A button's custom_id is the service's action code itself, and a select menu carries the codes as option values,
so a press is decoded without any in-memory state: the `DynamicItem` templates registered at start-up match the
ids on every message the bot ever sent, including those sent by a previous process.

Discord allows 5 rows of 5 buttons; a keyboard that does not fit is repacked, and if it still does not fit its
widest rows are folded into select menus (25 options each) so no action is lost.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from bot.messages import Button, Keyboard

log = logging.getLogger(__name__)

MAX_ROWS = 5
MAX_PER_ROW = 5
MAX_OPTIONS = 25
LABEL_LIMIT = 80
OPTION_LABEL_LIMIT = 100
SELECT_PREFIX = "majlis-sel:"
# Every custom_id that is not one of our select menus is an action code; the service judges its validity, so a
# forged or outdated id still gets an answer instead of Discord's "interaction failed".
BUTTON_TEMPLATE = r"(?!" + re.escape(SELECT_PREFIX) + r")(?P<code>[^\n]{1,100})"
SELECT_TEMPLATE = re.escape(SELECT_PREFIX) + r"(?P<n>\d{1,2})"


class Presser(Protocol):
    async def on_press(self, interaction: discord.Interaction, code: str) -> None: ...


def _presser(interaction: discord.Interaction) -> Presser:
    return interaction.client.presser  # type: ignore[attr-defined]  # set by MajlisClient


@dataclass(frozen=True)
class Block:
    """One component row: a row of buttons, or a select menu holding many buttons' actions."""

    kind: str  # "buttons" or "select"
    buttons: tuple[Button, ...]


def _split(rows: list[list[Button]]) -> list[list[Button]]:
    return [row[i : i + MAX_PER_ROW] for row in rows for i in range(0, len(row), MAX_PER_ROW)]


def layout(keyboard: Keyboard) -> list[Block]:
    """Fit a keyboard into Discord's 5x5 grid: as is, else repacked, else with its widest rows as select menus."""
    rows = [list(row) for row in keyboard if row]
    split = _split(rows)
    if len(split) <= MAX_ROWS:
        return [Block("buttons", tuple(row)) for row in split]
    flat = [button for row in rows for button in row]
    if len(flat) <= MAX_ROWS * MAX_PER_ROW:
        return [Block("buttons", tuple(row)) for row in _split([flat])]
    folded: set[int] = set()
    for index in sorted(range(len(rows)), key=lambda i: -len(rows[i])):
        if not all(button.data for button in rows[index]):
            continue  # link buttons cannot live in a select menu
        folded.add(index)
        kept = _split([row for i, row in enumerate(rows) if i not in folded])
        pooled = sum(len(rows[i]) for i in folded)
        if len(kept) + math.ceil(pooled / MAX_OPTIONS) <= MAX_ROWS:
            break
    # Rows as wide as those folded belong in the same menus while that needs no extra menu, so a grid of moves
    # is not split between menus and buttons; shorter rows (controls such as Back) stay buttons.
    narrowest = min(len(rows[i]) for i in folded)
    for index, row in enumerate(rows):
        pooled = sum(len(rows[i]) for i in folded)
        if index not in folded and len(row) >= narrowest and all(b.data for b in row) and \
                math.ceil((pooled + len(row)) / MAX_OPTIONS) <= math.ceil(pooled / MAX_OPTIONS):
            folded.add(index)
    pool = [button for i, row in enumerate(rows) if i in folded for button in row]
    blocks: list[Block] = []
    for index, row in enumerate(rows):
        if index in folded:
            if index == min(folded):
                blocks += [Block("select", tuple(pool[i : i + MAX_OPTIONS])) for i in range(0, len(pool), MAX_OPTIONS)]
            continue
        blocks += [Block("buttons", tuple(part)) for part in _split([row])]
    if len(blocks) > MAX_ROWS:
        log.warning("keyboard too large for Discord: %d rows kept of %d", MAX_ROWS, len(blocks))
    return blocks[:MAX_ROWS]


def _style(code: str) -> discord.ButtonStyle:
    op = code.split(":", 1)[0]
    if op == "s":
        return discord.ButtonStyle.success
    if op in ("x", "t"):
        return discord.ButtonStyle.danger
    if op in ("j", "h", "m"):
        return discord.ButtonStyle.primary
    return discord.ButtonStyle.secondary


class ActionButton(discord.ui.DynamicItem[discord.ui.Button], template=BUTTON_TEMPLATE):
    """A button whose custom_id is a service action code."""

    def __init__(self, code: str, label: str = "", *, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=(label or "·")[:LABEL_LIMIT], custom_id=code, style=_style(code)),
                         row=row)
        self.code = code

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ActionButton:
        return cls(match["code"], getattr(item, "label", None) or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await _presser(interaction).on_press(interaction, self.code)


class ActionSelect(discord.ui.DynamicItem[discord.ui.Select], template=SELECT_TEMPLATE):
    """A select menu standing for buttons that did not fit: each option's value is an action code."""

    def __init__(self, number: int, options: list[discord.SelectOption], placeholder: str | None = None,
                 *, row: int | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=f"{SELECT_PREFIX}{number}", options=options,
                                           placeholder=placeholder), row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ActionSelect:
        options = list(getattr(item, "options", None) or [discord.SelectOption(label="·", value="·")])
        return cls(int(match["n"]), options, getattr(item, "placeholder", None))

    async def callback(self, interaction: discord.Interaction) -> None:
        values = (interaction.data or {}).get("values") or []
        await _presser(interaction).on_press(interaction, str(values[0]) if values else "")


def build_view(keyboard: Keyboard) -> discord.ui.View | None:
    """The components for a keyboard (None when it has no buttons: an edit then removes old components).

    A select menu's placeholder names its first and last choice, which needs no language.
    """
    blocks = layout(keyboard)
    if not blocks:
        return None
    view = discord.ui.View(timeout=None)
    seen: set[str] = set()
    selects = 0
    for row, block in enumerate(blocks):
        if block.kind == "select":
            options = []
            for button in block.buttons:
                if button.data and button.data not in seen:
                    seen.add(button.data)
                    options.append(discord.SelectOption(label=(button.label or "·")[:OPTION_LABEL_LIMIT],
                                                        value=button.data))
            if options:
                placeholder = f"{options[0].label} … {options[-1].label}"[:OPTION_LABEL_LIMIT]
                view.add_item(ActionSelect(selects, options, placeholder, row=row))
                selects += 1
            continue
        for button in block.buttons:
            if button.url:
                view.add_item(discord.ui.Button(label=(button.label or "·")[:LABEL_LIMIT], url=button.url, row=row))
            elif button.data and button.data not in seen:  # Discord rejects two components with one custom_id
                seen.add(button.data)
                view.add_item(ActionButton(button.data, button.label, row=row))
    return view if view.children else None
