"""The terminal game through the real service: a whole match typed at the prompt, bad input, leaving."""

from __future__ import annotations

import pytest

from bot.console import play
from bot.service import Service
from tests.chat import console_service, typed_lines


async def run_console(inputs, lang="en", players=2, options=None):
    store, service, transport, out = await console_service(4)
    read = typed_lines(inputs)

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
    assert "✓ You called Tunj! — " in text and " broke: priority" in text, "the call names what was broken"
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
    assert "Grouped value: " in text and "✓ You melded " in text
    assert "Winner" in text or "draw" in text


def test_play_refuses_konkan_modes_the_terminal_cannot_seat(capsys):
    from bot import cli
    from bot.i18n import t

    assert cli.main(["play", "konkan", "--mode", "ranked", "--lang", "en"]) == 2
    assert cli.main(["play", "konkan_tiles", "--mode", "kirkuk", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert t("en", "kt.ranked_four", n=1) in err and "coming soon" in err


async def _typed(game: str, players: int, options: dict, lines: list[str], lang: str = "en", stake: int = 0) -> str:
    """What the terminal printed for `lines` typed at the start of a `game` table (then the input ends)."""
    store, service, transport, out = await console_service(4)
    read = typed_lines(lines)

    start = len(out.getvalue())
    await play(service, transport, game, players, options, lang, read=read, stake=stake)
    await store.close()
    return out.getvalue()[start:]


@pytest.mark.parametrize("game,players,options,example,foreign", [
    ("kenza", 2, {}, "play 6O take 4C 5E", "R9"),
    ("konkan_tiles", 2, {"mode": "private"}, "meld R9 K9 Y9", "6O"),
    ("konkan_cards", 2, {}, "meld 7H 8H 9H", "6O"),
    ("canasta", 2, {"variant": "duo"}, "meld 7H 7S X", "6O"),
    ("tunj", 2, {}, "move R F1", "6O"),
])
async def test_terminal_help_lists_what_works_here_with_a_move_of_this_game(game, players, options, example, foreign):
    """Issue 25: the terminal's /help was the chats' (/join, /back, /timer...) with a Kenza move inside Konkan."""
    import re

    text = await _typed(game, players, options, ["/help"])
    help_text = text[text.index("» "):]
    assert example in help_text and foreign not in help_text
    listed = set(re.findall(r"/([a-z]+)", help_text))
    assert listed and not listed & {"new", "join", "leave", "start", "cancel", "back", "timer", "rated", "tournament"}
    assert "coins" not in listed  # not a coin table
    answers = await _typed(game, players, options, [f"/{command}" for command in sorted(listed - {"m", "help"})])
    assert "I don't know that command" not in answers


async def test_terminal_help_in_arabic_and_at_a_coin_table():
    text = await _typed("konkan_cards", 2, {}, ["/help"], lang="ar", stake=10)
    assert "اللعب هنا في الطرفية" in text and "meld 7H 8H 9H" in text and "/coins" in text and "/join" not in text


async def test_pass_and_play_shows_a_hand_only_after_its_player_pressed_enter():
    """Issue 25: at a coin table (every seat a player at this terminal) the next player's cards were printed right
    under the cards of the player who had just moved. Now the keyboard is handed over first: a prompt naming the
    next player, and only after their Enter their cards."""
    import itertools
    import random

    import engine
    from bot.i18n import t
    from engine.bots import decide

    store, service, transport, out = await console_service(4)
    rules = engine.get("konkan_cards")
    pass_prompt = t("en", "console.pass_to", name="{name}").split("{name}")[0]
    prompts: list[tuple[str, int]] = []
    handed = 0

    async def read(prompt: str) -> str:
        nonlocal handed
        seen = out.getvalue()
        if prompt.startswith(pass_prompt):
            handed += 1
            incoming = "player2" if "Player 2" in prompt else "you"
            hand = transport._latest[incoming].text
            assert not prompts or hand not in seen[prompts[-1][1]:], "their cards were shown before their Enter"
            prompts.append((prompt, len(seen)))
            return ""
        before = prompts[-1][0] if prompts else prompt
        if not before.startswith(pass_prompt) and before.split("]")[0] != prompt.split("]")[0]:
            raise AssertionError(f"the keyboard went from {prompts[-1][0]!r} to {prompt!r} without a hand-over")
        prompts.append((prompt, len(seen)))
        if len(prompts) > 400:
            raise EOFError
        match = await store.lobby_or_active_match("console", "table")
        state = rules.from_json(match.snapshot)
        return decide("konkan_cards", state, rules.to_move(state), "normal", random.Random(len(prompts)))

    await play(service, transport, "konkan_cards", 2, {}, "en", read=read, stake=10)
    await store.close()
    assert handed >= 10
    text = out.getvalue()
    for (prompt, at), (_after, until) in itertools.pairwise(prompts):
        if prompt.startswith(pass_prompt):  # after the Enter: that player's turn line, then their cards
            assert t("en", "console.turn_of", name=prompt[len(pass_prompt):].split(".")[0]) in text[at:until]


def test_terminal_tiles_text_shows_codes_the_false_joker_and_what_a_joker_in_a_set_stands_for():
    """Issue 25, tiles in the terminal: squares on the screen but R/K/B/Y in typed moves; ✳ explained nowhere; a
    joker inside a set shown without what it stands for."""
    import engine
    from bot.games.konkan_tiles import UI
    from bot.i18n import t

    game = engine.get("konkan_tiles")
    state = game.new(2, {"mode": "private"}, seed=3)
    view = game.view(state, game.to_move(state))
    joker = view["joker"]
    other = "R" if joker[0] != "R" else "B"
    number = "9" if joker[1:] != "9" else "8"
    view = {**view, "hand": ["R4", "K13", "F"], "melds": [
        {"number": 1, "seat": 0, "kind": "set", "cards": [f"{other}{number}", f"K{number}" if other != "K" else
                                                          f"Y{number}", joker], "locked": [False, False]},
        {"number": 2, "seat": 1, "kind": "run", "cards": [f"{joker}:B6", "B7", "B8"], "locked": [False, False]}]}
    rack = UI.describe_rack(view, "en")
    assert "1) 🟥R4  2) ⬛K13  3) ✳F" in rack
    marks = {"R": "🟥", "K": "⬛", "B": "🟦", "Y": "🟨"}
    assert t("en", "kt.false_joker", joker=marks[joker[0]] + joker) in rack
    assert "✳" in t("ar", "kt.false_joker", joker="🟥R4")
    table = UI.describe_table(view, "en", ["You", "Bot"])
    used = {other, "K" if other != "K" else "Y"}
    stands = "/".join(marks[colour] + colour + number for colour in marks if colour not in used)
    assert f"{marks[joker[0]]}{joker}={stands}" in table
    assert f"{marks[joker[0]]}{joker}=🟦B6 🟦B7 🟦B8" in table
    assert f"indicator {marks[view['indicator'][0]]}{view['indicator']}" in table
    from bot import rules

    for lang in ("en", "ar"):  # the rules help says what ✳ and the squares are, once
        assert "✳" in "".join(rules.page_text("konkan_tiles", lang, n) or "" for n in range(1, 5))


async def test_terminal_arranged_tiles_keep_their_rack_numbers():
    """Issue 25: after 🧩 Arrange the terminal's button numbers no longer matched the tile numbers of the rack line
    ("[1] 2. 🟥5"): now [n] is tile n in any order, and typing n ticks that tile."""
    import re

    from bot.i18n import t

    store, service, transport, out = await console_service(7)
    marks: dict[str, int] = {}

    def read(prompt: str) -> str:
        labels = [button.label for button in transport.buttons]
        if "ticked" in marks:
            raise EOFError
        if "arranged" in marks:
            marks["ticked"] = len(out.getvalue())
            return "2"
        if t("en", "kt.c.arrange") in labels:
            marks["arranged"] = len(out.getvalue())
            return str(labels.index(t("en", "kt.c.arrange")) + 1)
        return "1"  # draw

    await play(service, transport, "konkan_tiles", 2, {"mode": "private"}, "en", read=read)
    await store.close()
    text = out.getvalue()

    def screen(part: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
        """The rack line's tiles by number and the keyboard's (number, tick, tile) lines."""
        rack = dict(re.findall(r"(\d+)\) (\S+)", re.search(r"Your tiles \(\d+\): (.*)", part).group(1)))
        return rack, [line for line in re.findall(r"  \[(\d+)\] (✓ )?(\S+)", part) if line[2][:1] in "🟥⬛🟦🟨✳"]

    rack, keys = screen(text[marks["arranged"]:marks["ticked"]])
    assert len(keys) == len(rack) and [int(key[0]) for key in keys] != sorted(int(key[0]) for key in keys)
    for number, _tick, label in keys:  # 🟥R5 in the rack line is 🟥5 on its button, under the same number
        assert rack[number] == (label[0] + "F" if label == "✳" else label[0] + rack[number][1] + label[1:])
    rack, keys = screen(text[marks["ticked"]:])
    assert [number for number, tick, _label in keys if tick] == ["2"]


@pytest.mark.parametrize("lang", ["en", "ar"])
async def test_pass_and_play_names_every_player_and_calls_nobody_you(lang):
    """Issue 25 (seen after the hand-over fix): at a coin table every seat reads the same terminal, yet the table's
    lines named the first player "You" ("أنت: رميتَ 8♦" on Player 2's screen too). Every seat is named there."""
    from bot.i18n import t

    store, service, transport, out = await console_service(4)
    await play(service, transport, "konkan_cards", 2, {}, lang, read=typed_lines(["1", "", "1", ""] * 6), stake=10)
    await store.close()
    text = out.getvalue()
    you = t(lang, "console.you")
    assert t(lang, "console.player", n=1) in text and t(lang, "console.player", n=2) in text
    assert not [line for line in text.splitlines() if line.startswith(f"{you}:") or f"\n{you}:" in line], text[-1500:]
