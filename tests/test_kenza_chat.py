"""Kenza in chat as a player reads it: the capture choices, the prompt, the move and table texts, in the reader's
language (the texts catalog, bot/locales)."""

from __future__ import annotations

import engine
from bot.games import ui_for
from bot.i18n import t

GAME = engine.get("kenza")
UI = ui_for("kenza")


def layout_state(hands, table, stock=()):
    return GAME.new(2, {"variant": "kenza", "target": 151},
                    layout={"hands": [list(h) for h in hands], "table": list(table), "stock": list(stock)})


def test_a_card_with_two_captures_offers_each_in_the_players_language():
    """rules/kenza.md: a 6 on 2 3 4 5 may take 2+3+4 or 4+5 — pressing the 6 opens one button per capture, in
    Arabic for an Arabic player, with a way back; the prompt is theirs too."""
    state = layout_state([["6O", "1B"], ["1C"]], ["2C", "3C", "4C", "5C"], stock=["7E", "7B"])
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    keyboard = UI.rack_buttons(view, legal, "ar", "0")
    assert [[b.label for b in row] for row in keyboard] == [
        [t("ar", "kenza.take", cards="2🏆 + 3🏆 + 4🏆"), t("ar", "kenza.take", cards="4🏆 + 5🏆")],
        [t("ar", "btn.back")]]
    assert keyboard[0][0].label != t("en", "kenza.take", cards="2🏆 + 3🏆 + 4🏆")
    assert UI.turn_prompt(view, "ar") == t("ar", "rack.your_turn", game=t("ar", "game.kenza")) != \
        UI.turn_prompt(view, "en")


def test_a_capture_and_the_table_in_words():
    """A capture names the card played and the cards it took; the table names the cards on it, the stock and the
    deal, then each player's hand, pile and sweeps, listed one after the other."""
    state = layout_state([["6O", "1B"], ["1C"]], ["2C", "3C", "4C", "5C"], stock=["7E", "7B"])
    assert UI.describe_move("play 6O take 4C 5C", "en") == "6🪙 took 4🏆 5🏆"
    assert UI.describe_table(GAME.view(state, None), "en", ["Ali", "Bot"]).splitlines() == [
        "Table: 2🏆 3🏆 4🏆 5🏆 · stock 2 · deal 1",
        "Ali: hand 2, pile 0, sweeps 0, Bot: hand 1, pile 0, sweeps 0"]


def test_a_deals_sheet_labels_its_rows():
    """The deal's sheet names every row from the catalog — cards, gold, other cards, sweeps, points, total."""
    detail = {"last_capturer": None, "leftover": 0, "points": [9, 3], "totals": [9, 3],
              "sides": [{"cards": 22, "gold": 5, "others": 12, "sweeps": 2}, {"cards": 18, "gold": 1, "others": 15,
                                                                               "sweeps": 0}]}
    sheet = UI.round_sheet(detail, 1, {}, ["Ali", "Bot"], ["Ali", "Bot"], "en")
    assert [label for label, _ in sheet.rows] == [
        t("en", key) for key in ("kenza.sheet.cards", "kenza.sheet.gold", "kenza.sheet.others", "kenza.sheet.sweeps",
                                 "sheet.points", "sheet.total")]
    assert t("en", "sheet.points") == "Points"
