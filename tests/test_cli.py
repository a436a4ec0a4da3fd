"""`majlis run` with no token starts the terminal game; `majlis play` checks its arguments."""

from __future__ import annotations

import pytest

from bot import cli


@pytest.fixture
def no_tokens(monkeypatch, tmp_path):
    for name in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here


def test_run_without_tokens_starts_the_terminal_game(no_tokens, capsys):
    assert cli.main(["run"]) == 0
    out = capsys.readouterr().out
    assert "No TELEGRAM_BOT_TOKEN or DISCORD_BOT_TOKEN is set" in out
    assert "كينزة" in out  # the game opened (Arabic by default) and left cleanly at the end of input
    assert "مع السلامة" in out


def test_play_refuses_unknown_games_and_player_counts(no_tokens, capsys):
    assert cli.main(["play", "chess", "--lang", "en"]) == 2
    assert cli.main(["play", "tunj", "--players", "3", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "Unknown game" in err and "Tunj is for 2–2 players" in err


def test_run_with_a_token_builds_that_platform_only(monkeypatch):
    from bot.config import Settings
    from bot.runner import build_adapters

    settings = Settings.from_env({"TELEGRAM_BOT_TOKEN": "123:abc"})
    adapters = build_adapters(object(), settings)  # type: ignore[arg-type]
    assert [type(adapter).__name__ for adapter in adapters] == ["TelegramAdapter"]
    both = Settings.from_env({"TELEGRAM_BOT_TOKEN": "123:abc", "DISCORD_BOT_TOKEN": "x"})
    assert {type(adapter).__name__ for adapter in build_adapters(object(), both)} == {"TelegramAdapter",
                                                                                      "DiscordAdapter"}


def test_run_that_cannot_start_says_why_and_exits_1(no_tokens, monkeypatch, capsys):
    import bot.runner

    async def refuse(settings):
        raise ConnectionError("no route to the Bot API")

    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    monkeypatch.setattr(bot.runner, "run_platforms", refuse)
    assert cli.main(["run"]) == 1
    err = capsys.readouterr().err
    assert "could not start: ConnectionError: no route to the Bot API" in err
