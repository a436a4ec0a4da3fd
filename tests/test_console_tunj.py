"""Tunj in the terminal against a bot whose pauses and closed Tunj! windows come from the timers while the prompt
waits: what they print starts on a line of its own and the prompt comes again under it; each bot move leaves the
Tunj! control as the one numbered button; a window that closes on the bot's slip says whose move broke the rule."""

from __future__ import annotations

import engine
from bot.console import play
from bot.i18n import t
from engine.tunj.bots import NormalBot
from tests.chat import console_service
from tests.clock import Clock
from tests.test_telegram_tunj import policy

GAME = engine.get("tunj")


async def _play_waiting_for_the_bot(lang: str, expiries: int = 2) -> tuple[str, list[tuple[str, str]], list[str]]:
    """A terminal Tunj game against the casual bot: the human types moves and never calls; while the bot moves
    (or its slip's window is open) the human leaves the prompt waiting and the timers run meanwhile. Returns the
    whole output, each prompt with what was printed while it waited, and the numbered buttons seen then."""
    clock = Clock()
    store, service, transport, out = await console_service(3, clock)
    waited: list[tuple[str, str]] = []
    calls_offered: list[str] = []
    expired = typed = 0

    async def read(prompt: str) -> str:
        nonlocal expired, typed
        out.write(prompt)  # as the terminal's reader does (bot.console.StdinReader)
        typed += 1
        match = await store.get_match(1)
        state = GAME.from_json(match.snapshot)
        seat = GAME.to_move(state)
        human = next(record.seat for record in await store.seats(1) if record.is_human)
        if typed > 4000 or expired >= expiries or match.status != "active":
            out.write("q\n")
            return "q"
        if state["claim"] is not None or seat != human:
            # The bot's turn: the Tunj! control stands, and the human lets its pause (or window) run out.
            calls_offered.append(" ".join(button.label for button in transport.buttons))
            expired += state["claim"] is not None
            before = len(out.getvalue())
            clock.now = match.deadline + 0.01
            await service.tick()
            waited.append((prompt, out.getvalue()[before:]))
            out.write("\n")  # the human presses Enter on an empty line
            return ""
        move = policy([legal for legal in GAME.legal_moves(state, seat) if legal != "tunj"])
        out.write(move + "\n")
        return move

    await play(service, transport, "tunj", 2, {}, lang, read=read, bots="normal", timer_interval=3600)
    await store.close()
    return out.getvalue(), waited, calls_offered


async def test_what_the_timers_print_leaves_a_fresh_prompt_and_a_closed_window_names_the_bots_slip(monkeypatch):
    monkeypatch.setattr(NormalBot, "slip_rate", 0.3)  # slips soon, so windows close uncalled in a short game
    text, waited, calls_offered = await _play_waiting_for_the_bot("en")
    shown = [printed for _, printed in waited if printed]
    assert len(shown) >= 5, "the bot's moves came one by one while the prompt waited"
    for prompt, printed in waited:
        if printed:
            assert printed.startswith("\n"), f"printed on the prompt's line: {printed[:80]!r}"
            assert printed.endswith(prompt), f"no prompt after: {printed[-80:]!r}"
    assert set(calls_offered) == {t("en", "tunj.btn.call")}, "the one numbered button all through the bot's turn"
    assert "You: window closed with no call from you — your opponent's " in text
    assert "window closed — no call;" not in text


async def test_in_arabic_the_closed_window_is_the_opponents_slip_and_the_prompt_comes_again(monkeypatch):
    monkeypatch.setattr(NormalBot, "slip_rate", 0.3)
    text, waited, _ = await _play_waiting_for_the_bot("ar", expiries=1)
    assert any(printed.endswith(prompt) for prompt, printed in waited if printed)
    assert "أنت: انتهت المهلة ولم تنادِ — حركة خصمك (" in text


def test_the_recap_line_of_a_window_you_let_close_names_your_opponents_slip():
    """The closed window is the reader's line ("You: ..."), but the rule was broken by the bot: the words say so,
    in English and Arabic."""
    from bot import summary
    from bot.i18n import You
    from tests.tunj_tables import table

    state = table(reserves=(["9S"], ["9D", "8S"]), hands=(["5C"], ["5H", "4D"]), houses={"H5": ["8C"]}, to_move=1)
    log = summary.Log(base=GAME.view(state, None))
    attempt = GAME.apply(state, 1, "move R H5")  # the bot's slip: 9♦ on 8♣
    log.entries.append((1, "move R H5", GAME.view(attempt, None), 1))
    expired = GAME.apply(attempt, 0, "expire")
    log.entries.append((0, "expire", GAME.view(expired, None), 1))
    lines = {lang: summary.recap("tunj", log, 0, GAME.view(expired, None),
                                 [You(t(lang, "console.you")), t(lang, "bot.name", n=2, level=t(lang, "level.normal"))],
                                 lang)[-1] for lang in ("en", "ar")}
    assert lines["en"] == ("You: window closed with no call from you — your opponent's reserve → H5 broke: houses go "
                           "down by one in alternating colours")
    assert lines["ar"].startswith("أنت: انتهت المهلة ولم تنادِ — حركة خصمك (الاحتياط إلى H5) خالفت: "), lines["ar"]
