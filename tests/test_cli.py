"""`majlis run` with no token starts the terminal game; `majlis play` checks its arguments."""

from __future__ import annotations

from pathlib import Path

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


@pytest.mark.parametrize("args,reason", [
    (["play", "kenza", "--variant", "duo"], "'variant' must be one of kenza, rabaeen, not 'duo'"),
    (["play", "kenza", "--target", "7"], "'target' must be one of 101, 151, 301, not '7'"),
    (["play", "canasta", "--variant", "duo", "--players", "4"], "duo is for 2 players"),
    (["play", "canasta", "--players", "3"], "Bad option"),
    (["play", "tunj", "--claim-seconds", "0"], "'claim_seconds' must be at least 1"),
])
def test_play_with_a_bad_option_exits_non_zero_with_the_reason(no_tokens, capsys, args, reason):
    assert cli.main([*args, "--lang", "en"]) == 2
    captured = capsys.readouterr()
    assert reason in captured.err and captured.out == ""  # nothing started


def test_play_errors_follow_the_language(no_tokens, capsys):
    assert cli.main(["play", "kenza", "--target", "7", "--lang", "ar"]) == 2
    err = capsys.readouterr().err
    assert "خيار غير صالح" in err and "الخيار «target» يكون واحدًا من 101, 151, 301، لا «7»" in err
    assert "must be" not in err


def test_play_with_an_unparsable_number_exits_2(no_tokens, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["play", "kenza", "--players", "x"])
    assert exit_.value.code == 2 and "--players: invalid int value: 'x'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["play", "--help"]])
def test_help_lists_games_variants_and_options(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for game, line in (("kenza", "rabaeen (Rabaeen (sum 40))"), ("canasta", "duo (Two players)"),
                       ("tunj", "--claim-seconds a whole number 1–120 (default 10)")):
        assert f"  {game} " in out and line in out
    assert "--target 101 | 151 | 301 (default 151)" in out
    assert "default by players: 2 → duo, 4 → classic4" in out and "Canasta: 2 or 4 players" in out
    if argv[0] == "play":
        assert "--variant V        the game's variant" in out and "--lang {ar,en}" in out


@pytest.mark.parametrize("line,name", [("TELEGRAM_WEBHOOK_PORT=abc", "TELEGRAM_WEBHOOK_PORT"),
                                       ("TELEGRAM_WEBHOOK_PORT=70000", "TELEGRAM_WEBHOOK_PORT"),
                                       ("DISCORD_GUILD_ID=my-server", "DISCORD_GUILD_ID")])
def test_a_bad_value_in_dotenv_is_one_line_naming_the_variable(no_tokens, monkeypatch, capsys, tmp_path, line,
                                                                name):
    for variable in ("TELEGRAM_WEBHOOK_PORT", "DISCORD_GUILD_ID", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    (tmp_path / ".env").write_text(f"DISCORD_BOT_TOKEN=x\n{line}\n")
    assert cli.main(["run"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and line.split("=")[1] in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""


def test_settings_refuse_bad_numbers_and_keep_good_ones():
    from bot.config import ConfigError, Settings

    good = Settings.from_env({"TELEGRAM_WEBHOOK_PORT": "8080", "DISCORD_GUILD_ID": "1234567890123"})
    assert good.telegram_webhook_port == 8080 and good.discord_guild_id == 1234567890123
    assert Settings.from_env({}).telegram_webhook_port == 8443 and Settings.from_env({}).discord_guild_id is None
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"DISCORD_GUILD_ID": "12a"})
    assert error.value.name == "DISCORD_GUILD_ID"


def test_operators_are_platform_and_user_id_pairs():
    from bot.config import ConfigError, Settings

    assert Settings.from_env({}).operators == frozenset()
    both = Settings.from_env({"MAJLIS_OPERATORS": " telegram:123 , Discord:456789;telegram:9 "})
    assert both.operators == {("telegram", "123"), ("discord", "456789"), ("telegram", "9")}
    for bad in ("123", "slack:1", "telegram:abc", "telegram:", "telegram:١٢"):
        with pytest.raises(ConfigError) as error:
            Settings.from_env({"MAJLIS_OPERATORS": bad})
        assert error.value.name == "MAJLIS_OPERATORS" and error.value.reason == "config.operators"


def test_ctrl_c_in_a_real_terminal_game_says_goodbye(tmp_path):
    """A real process: wait for the prompt (reading its output, no sleeping), press Ctrl-C (SIGINT)."""
    import signal
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "play", "kenza", "--lang", "en", "--seed", "1"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=Path(__file__).resolve().parents[1])
    seen = b""
    while b"q to quit): " not in seen:
        chunk = process.stdout.read1(4096)
        assert chunk, seen.decode() + process.stderr.read().decode()
        seen += chunk
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    assert (seen + out).decode().rstrip().endswith("Goodbye!")
    assert b"Traceback" not in err


def test_install_script_runs_pip_only_when_pyproject_changed(tmp_path):
    """scripts/install.sh against a stand-in venv whose python logs each pip call instead of running it."""
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "scripts").mkdir()
    shutil.copy(root / "scripts" / "install.sh", tmp_path / "scripts" / "install.sh")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    fake = tmp_path / ".venv" / "bin" / "python"
    fake.write_text(f'#!/bin/sh\nif [ "$2" = pip ]; then echo "$@ warnings=$PYTHONWARNINGS" >> pip.log; exit 0; fi\n'
                    f'exec {sys.executable} "$@"\n')
    fake.chmod(0o755)

    def install(*extras: str) -> list[str]:
        subprocess.run(["bash", "scripts/install.sh", *extras], cwd=tmp_path, check=True)
        log = tmp_path / "pip.log"
        lines = log.read_text().splitlines() if log.exists() else []
        log.unlink(missing_ok=True)
        return lines

    first = install()
    assert any("install --quiet -e ." in line for line in first)
    assert all("warnings=ignore::UserWarning" in line for line in first)
    assert install() == []  # nothing changed: no pip at all
    assert any("-e .[dev]" in line for line in install("dev"))  # the test tools are asked for once
    assert install("dev") == [] and install() == []  # a dev install serves a plain run
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '2'\n")
    assert any("install --quiet -e ." in line for line in install())


@pytest.mark.parametrize("args,table", [
    (["--players", "2"], "Private room (no stats) · Standard (Erbil) rules"),
    (["--players", "2", "--rules", "sulaymaniyah"], "Private room (no stats) · Sulaymaniyah rules"),
    (["--rules", "sulaymaniyah"], "\nSulaymaniyah\nPlayers"),
    (["--players", "4", "--rules", "sulaymaniyah"], "\nSulaymaniyah\nPlayers"),
    ([], "Quick · Standard (Erbil) rules"),
    (["--mode", "private"], "Private room (no stats)"),
])
def test_konkan_tiles_defaults_follow_the_players_and_rules_as_the_help_says(no_tokens, capsys, args, table):
    """Issue 25, defect 1: with no --mode, two players open a private 1v1 room and --rules sulaymaniyah the
    Sulaymaniyah mode, instead of "Konkan quick is for 4 players, not 2"."""
    assert cli.main(["play", "konkan_tiles", *args, "--lang", "en"]) == 0  # the table opened; input ended at once
    captured = capsys.readouterr()
    assert table in captured.out and "Bad option" not in captured.err + captured.out


def test_konkan_tiles_help_names_one_default_mode(capsys):
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the option help
    assert "default quick" not in out
    assert "--mode quick | sulaymaniyah | turbo | private (default by players: 2 → private, 4 → quick)" in out
    assert "ranked" not in out and "tournament" not in out  # modes the terminal cannot open are not offered
    assert "default by players: 4 → quick, 2 → private, a 1v1 room" in out


@pytest.mark.parametrize("args,reason", [
    (["konkan_tiles", "--mode", "tournament"], "Tournament tables are opened by a tournament's bracket"),
    (["konkan_cards", "--players", "2", "--stake", "9999"], "9999"),
])
def test_a_start_the_lobby_refuses_exits_2_like_every_refused_start(no_tokens, capsys, args, reason):
    """Issue 25, defect 10: these printed a warning and exited 0 (a seat costs 9999 coins, a player has 500)."""
    assert cli.main(["play", *args, "--lang", "en"]) == 2
    captured = capsys.readouterr()
    assert reason in captured.err and "The game has started" not in captured.out
    assert "500" in captured.err or "9999" not in reason


def test_the_terminal_game_of_majlis_run_shows_no_migration_lines(tmp_path):
    """Issue 25: `majlis run` with no token started the terminal game under nine alembic INFO lines."""
    import os
    import subprocess
    import sys

    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),  # no token, nothing other tests loaded
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-m", "bot.cli", "run"], stdin=subprocess.DEVNULL, capture_output=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert "كينزة" in done.stdout.decode()
    assert b"alembic" not in done.stderr + done.stdout and b"INFO" not in done.stderr + done.stdout


def test_the_bots_log_never_shows_the_token_in_a_request_url(caplog):
    """httpx writes each request's URL at INFO — for the Bot API that is https://api.telegram.org/bot<TOKEN>/…; with
    the operators' INFO logging on, that line must not reach the log."""
    import logging

    from bot.cli import configure_logging
    from bot.logs import QUIET

    root = logging.getLogger()
    kept = root.level, {name: logging.getLogger(name).level for name in QUIET}
    try:
        configure_logging(operators=True)
        with caplog.at_level(logging.INFO):
            logging.getLogger("httpx").info('HTTP Request: POST https://api.telegram.org/bot123:SECRET/getMe "200 OK"')
            logging.getLogger("bot.runner").info("started")
        assert "started" in caplog.text and "SECRET" not in caplog.text
    finally:
        root.setLevel(kept[0])
        for name, level in kept[1].items():
            logging.getLogger(name).setLevel(level)
