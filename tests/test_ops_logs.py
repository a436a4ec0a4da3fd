"""Log lines (issue 30 point 3): MAJLIS_LOG_FORMAT=json gives one JSON object a line with time, level, logger,
message, match, platform and worker; no token and no hidden card reaches a line, whatever logs it."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

from bot.cli import configure_logging
from bot.config import Settings
from bot.logs import HIDDEN, handler_for, quiet_libraries
from storage import Store
from tests.clock import Clock
from tests.tg_harness import GROUP_ID, Bot, Failure, FakeTelegram, open_table, play_one, user

ALICE = user(111, "Alice")
BADR = user(222, "Badr")
TOKEN = "7000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"  # shaped like a real one (bot id, colon, 35 characters)
DISCORD = "MTA5ODc2NTQzMjEwOTg3NjU0Mw.GhX1aB.abcdefghijklmnopqrstuvwxyz0123456789AB"
FIELDS = {"time", "level", "logger", "message", "match", "platform", "worker"}


@contextmanager
def captured(log_format: str, secrets: tuple[str, ...] = (), level: int = logging.INFO) -> Iterator[io.StringIO]:
    """Everything logged meanwhile, as the operator's handler writes it (bot/logs.py), at `level`."""
    stream = io.StringIO()
    handler = handler_for(stream, log_format, secrets, worker="w1")
    root = logging.getLogger()
    kept = root.level
    root.addHandler(handler)
    root.setLevel(level)
    libraries = quiet_libraries()  # as configure_logging holds them
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(kept)
        for name, before in libraries.items():
            logging.getLogger(name).setLevel(before)


def held_cards(snapshot: dict) -> set[str]:
    return {card for hand in snapshot["hands"] for card in hand}


async def test_json_lines_carry_match_platform_and_worker_and_never_a_held_card(store: Store) -> None:
    server = FakeTelegram()
    lines: list[str] = []
    clock = Clock(1_700_000_000.0)
    async with Bot(server, store, clock=clock, seed=6) as bot:
        with captured("json", level=logging.DEBUG) as stream:
            match_id = await open_table(bot, ALICE, [BADR])
            # Refused table edits: the delivery logs its retries, about this match, from its own task.
            server.failures.append(Failure("editMessageMedia", 502, "Bad Gateway", str(GROUP_ID), times=1))
            secret: set[str] = set()
            for _ in range(4):
                secret |= held_cards((await store.get_match(match_id)).snapshot)
                await play_one(bot, match_id, {0: ALICE, 1: BADR})
                clock.advance(5.0)  # past the retry's backoff: the screens go out
                await bot.service.tick()
            logging.getLogger("bot.test").info("plain line", extra={"match": 99})
        lines = stream.getvalue().splitlines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert records and all(set(record) >= FIELDS for record in records)
    assert all(record["worker"] == "w1" and record["time"].endswith("Z") for record in records)
    failed = [r for r in records if r["logger"] == "bot.core.delivery" and "delivery attempt 1 failed" in r["message"]]
    assert failed and failed[0]["level"] == "WARNING"
    assert failed[0]["match"] == match_id and failed[0]["platform"] == "telegram"
    assert records[-1]["message"] == "plain line" and records[-1]["match"] == 99
    # No card any hand held at those moments appears in any line (moves the table shows are public, not logged).
    text = "\n".join(record["message"] + (record.get("exception") or "") for record in records)
    for card in secret:
        assert not re.search(rf"(?<![0-9A-Za-z]){re.escape(card)}(?![0-9A-Za-z])", text), card


def test_no_token_in_any_line_message_argument_or_traceback() -> None:
    settings = Settings.from_env({"TELEGRAM_BOT_TOKEN": TOKEN, "DISCORD_BOT_TOKEN": "dc-secret-token-value"})
    log = logging.getLogger("majlis.test")
    for log_format in ("text", "json"):
        with captured(log_format, settings.secrets) as stream:
            log.warning("calling https://api.telegram.org/bot%s/getMe", TOKEN)
            log.info("discord token is %s; webhook secret %s", "dc-secret-token-value", settings.webhook_secret)
            log.info("someone else's token turned up: %s", DISCORD)
            try:
                raise ConnectionError(f"Client error for url https://api.telegram.org/bot{TOKEN}/sendMessage")
            except ConnectionError:
                log.exception("request failed")
            log.info("a move: play 9O take 4C 5E")  # ordinary words pass untouched
        out = stream.getvalue()
        for secret in (TOKEN, TOKEN.split(":")[1], "dc-secret-token-value", settings.webhook_secret, DISCORD):
            assert secret not in out, (log_format, secret)
        assert out.count(HIDDEN) == 5 and "Traceback" in out and "ConnectionError" in out
        assert "play 9O take 4C 5E" in out


def test_log_format_setting_is_checked_and_configure_logging_applies_it(monkeypatch, capsys) -> None:
    assert Settings.from_env({}).log_format == "text"
    assert Settings.from_env({"MAJLIS_LOG_FORMAT": "JSON"}).log_format == "json"
    try:
        Settings.from_env({"MAJLIS_LOG_FORMAT": "xml"})
    except ValueError as error:
        assert "MAJLIS_LOG_FORMAT" in str(error)
    else:
        raise AssertionError("an unknown log format was accepted")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    root.handlers = []
    try:
        settings = Settings.from_env({"MAJLIS_LOG_FORMAT": "json", "TELEGRAM_BOT_TOKEN": TOKEN, "MAJLIS_WORKER": "a"})
        configure_logging(True, settings)
        logging.getLogger("bot.runner").info("token %s", TOKEN)
        line = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
        assert line["message"] == f"token {HIDDEN}" and line["worker"] == "a" and line["level"] == "INFO"
    finally:
        root.handlers, root.level = saved


async def test_a_failing_press_logs_its_action_not_the_cards_in_its_code(store: Store, monkeypatch) -> None:
    """A move button's code carries its picking state, which may name the presser's cards (a Canasta selection):
    the line about a press that failed names the action and the match only."""
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        async def broken(*_args: object, **_kwargs: object) -> None:
            raise RuntimeError("boom")

        monkeypatch.setattr(bot.service, "_press", broken)
        with captured("text") as stream:
            answer = await bot.press(ALICE, ALICE["id"], 5, "m:12:3:0:_QH.7S")
        out = stream.getvalue()
    assert "went wrong" in answer["text"]
    assert "button m:12 from 111 failed" in out and "RuntimeError: boom" in out
    assert "QH" not in out and "7S" not in out
