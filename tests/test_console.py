"""The terminal game through the real service: a whole match typed at the prompt, bad input, leaving."""

from __future__ import annotations

from bot.console import play
from bot.service import Service
from tests.chat import console_service


async def run_console(inputs, lang="en", players=2, options=None):
    store, service, transport, out = await console_service(4)
    feed = iter(inputs)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    await play(service, transport, "kenza", players, options or {"target": "101"}, lang, read=read)
    match = await store.lobby_or_active_match("console", "table")
    finished = await store.get_match(1)
    await store.close()
    return out.getvalue(), match, finished


async def test_whole_match_by_numbers():
    text, open_match, finished = await run_console(["1"] * 400)
    assert finished.status == "finished"
    assert open_match is None
    assert "Winner" in text or "draw" in text


async def test_bad_input_is_answered_and_changes_nothing():
    text, _, match = await run_console(["99", "play 9O", "/frob", "hello", "q"])
    assert "Choose a number from 1 to" in text
    assert "is not a card" in text
    assert "don't know that command" in text
    assert "write a move as" in text
    assert match.version == 0 and match.status == "active"


async def test_end_of_input_leaves_cleanly_in_arabic():
    text, _, _ = await run_console([], lang="ar", players=3)
    assert "مع السلامة" in text


async def test_command_looking_input_never_ends_the_match():
    text, _, match = await run_console(["/", "/ ", "/%", "/٣", "//", "/ m", "/m", "q"])
    assert text.count("don't know that command") >= 5
    assert "Traceback" not in text
    assert match.status == "active" and match.version == 0
    assert text.rstrip().endswith("Goodbye!")


async def test_a_failing_input_is_answered_and_the_game_goes_on(monkeypatch):
    calls = []
    original = Service.command

    async def flaky(self, actor, chat, name, args=None):
        if name == "score" and not calls:
            calls.append(name)
            raise RuntimeError("a bug behind one command")
        return await original(self, actor, chat, name, args)

    monkeypatch.setattr(Service, "command", flaky)
    text, _, match = await run_console(["/score", "/score", "1", "q"])
    assert calls == ["score"]
    assert "Something went wrong; please try again." in text
    assert "Scores" in text or "scores" in text  # the second /score answered
    assert match.version >= 1  # and the move after it was played


async def test_start_shows_the_lobby_once_and_no_language_line():
    text, _, _ = await run_console(["q"])
    assert text.count("New table: Kenza") == 1
    assert "The game has started." in text and text.count("The game has started.") == 1
    assert "speaks English" not in text and "Language set" not in text
    assert "about to start" not in text


async def test_timer_and_hand_answer_what_is_true_in_the_terminal():
    before, _, _ = await run_console(["q"])
    text, _, match = await run_console(["/timer 30", "/hand", "q"])
    assert "The terminal has no turn timer" in text and "Each turn now has" not in text
    assert "I sent your hand" not in text
    assert text.count("Your cards:") == before.count("Your cards:") + 1  # the hand itself, printed right here
    assert match.status == "active"


async def test_ctrl_c_at_the_prompt_says_goodbye():
    store, service, transport, out = await console_service(4)

    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    await play(service, transport, "kenza", 2, {}, "ar", read=interrupted)
    await store.close()
    assert out.getvalue().rstrip().endswith("مع السلامة!")


async def test_lang_switch_changes_the_console_prompt():
    prompts = []
    store, service, transport, out = await console_service(4)
    feed = iter(["/lang en", "q"])

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)

    await play(service, transport, "kenza", 2, {}, "ar", read=read)
    await store.close()
    assert prompts[0].startswith("اختيارك") and prompts[1].startswith("Your choice")
    assert out.getvalue().rstrip().endswith("Goodbye!")


class FixedClock:
    """The service's clock, held still: a claim window (or a bot's pause) never closes by itself during the test,
    only when the test moves it."""

    now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_terminal_tunj_hand_where_the_human_calls_the_bots_slip_and_wins_the_claim():
    """Against the casual-level bot ("normal", which slips now and then), the human plays typed legal moves and
    answers with the Tunj! number whenever a claim is open against the bot — which the terminal never spells out
    until the call names what was broken."""
    import engine
    from bot.i18n import t
    from tests.test_telegram_tunj import policy

    game = engine.get("tunj")
    clock = FixedClock()
    store, service, transport, out = await console_service(3, clock)
    calls: list[int] = []  # output length when each call was made
    typed = 0

    async def read(prompt: str) -> str:
        nonlocal typed
        match = await store.lobby_or_active_match("console", "table")
        state = game.from_json(match.snapshot)
        seat = game.to_move(state)
        typed += 1
        if typed > 3000:
            raise EOFError
        if state["claim"] is not None:
            assert state["claim"]["caller"] == seat and state["claim"]["by"] != seat
            labels = [button.label for button in transport.buttons]
            assert labels == [t("en", "tunj.btn.call")], labels
            calls.append(len(out.getvalue()))
            return "1"
        if (await store.seats(match.id))[seat].bot_level:  # the bot's pause after a clean move: let it end
            clock.now = match.deadline + 0.01
            await service.tick()
            return ""
        return policy(game.legal_moves(state, seat))

    await play(service, transport, "tunj", 2, {}, "en", read=read, bots="normal", timer_interval=3600)
    text = out.getvalue()
    finished = await store.get_match(1)
    records = await store.moves(1)
    await store.close()
    assert finished.status == "finished", "the hand was played to its end"
    assert calls, "the casual bot slipped and the human called"
    human = next(record.seat for record in records if record.actor == "human")
    won = [n for n, record in enumerate(records) if record.move == "tunj" and record.seat == human]
    assert len(won) == len(calls), "every call was a correct one"
    assert all(records[n - 1].seat != human and records[n - 1].actor == "bot" for n in won), "on the bot's slip"
    before_first_call = text[: calls[0]]
    assert "attempted" not in before_first_call and "Open claim" not in before_first_call, \
        "the terminal did not spot the slip for the human"
    assert "Played: called Tunj! — " in text and " broke: priority" in text, "the call names what was broken"
    assert "Winner" in text or "draw" in text


def test_play_refuses_an_unknown_bot_level(capsys):
    from bot import cli

    assert cli.main(["play", "tunj", "--bots", "genius", "--lang", "en"]) == 2
    assert cli.main(["play", "kenza", "--bots", "strong", "--lang", "ar"]) == 2
    err = capsys.readouterr().err
    assert "Unknown bot level “genius”. Choose one of: random, normal, strong" in err
    assert "مستوى بوت غير معروف «strong». اختر من: random, normal" in err


async def test_terminal_konkan_tiles_quick_match_typed_to_the_end_with_arrange():
    """`majlis play konkan_tiles --mode quick`: the human (seat 0, partnered with a bot) types each move in notation
    (the chat test's policy), presses the rack's Arrange button by its number once, and the match ends."""
    import engine
    from bot import cli
    from bot.i18n import t
    from tests.test_konkan_tiles_chat import choose

    game = engine.get("konkan_tiles")
    options = cli._with_mode(cli.GAME_ALIASES["konkan"], {})
    assert options == {"mode": "quick"} and cli._fewest_players("konkan_tiles", options) == 4
    store, service, transport, out = await console_service(5, FixedClock())
    typed, arranged = 0, []

    async def read(prompt: str) -> str:
        nonlocal typed
        typed += 1
        if typed > 4000:
            raise EOFError
        match = await store.lobby_or_active_match("console", "table")
        state = game.from_json(match.snapshot)
        seat = game.to_move(state)
        labels = [button.label for button in transport.buttons]
        if not arranged and t("en", "kt.c.arrange") in labels:
            arranged.append(len(out.getvalue()))
            return str(labels.index(t("en", "kt.c.arrange")) + 1)
        return choose(game.view(state, seat), game.legal_moves(state, seat))

    await play(service, transport, "konkan_tiles", 4, options, "en", read=read, bots="normal", timer_interval=3600)
    text = out.getvalue()
    finished = await store.get_match(1)
    await store.close()
    assert finished.status == "finished" and finished.mode == "quick"
    assert arranged and t("en", "kt.c.unarrange") in text[arranged[0]:]
    assert "Grouped value: " in text and "Played: melded " in text
    assert "Winner" in text or "draw" in text


def test_play_refuses_konkan_modes_the_terminal_cannot_seat(capsys):
    from bot import cli
    from bot.i18n import t

    assert cli.main(["play", "konkan", "--mode", "ranked", "--lang", "en"]) == 2
    assert cli.main(["play", "konkan_tiles", "--mode", "kirkuk", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert t("en", "kt.ranked_four", n=1) in err and "coming soon" in err
