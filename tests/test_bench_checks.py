"""The benches refuse a run that did not do the work: each check passes on a tiny real run and stops (exit code 1,
one line) on a deliberately broken one."""

from __future__ import annotations

import io
import sys

import pytest
from PIL import Image

import renderers
from bench import engine as engine_bench
from bench import press_cost
from bench import render as render_bench
from bench.checks import BrokenRun, played
from bench.pipeline import run as pipeline_run
from bench.pipeline_games import TABLES
from bot import service as service_module
from bot.core import play as play_module
from bot.messages import Reply
from tests.tg_harness import FakeTelegram


def png(size: tuple[int, int], kind: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (10, 120, 60)).save(buffer, kind)
    return buffer.getvalue()


def refused(capsys: pytest.CaptureFixture[str], main, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a bench's main; it must exit with code 1 and a one-line reason."""
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        main()
    reason = str(stop.value.code)
    assert reason.startswith("bench refused the run: ") and "\n" not in reason, reason
    assert "median" not in capsys.readouterr().out, "figures were printed for a refused run"
    return reason


def test_played_reads_the_service_answer_in_each_language():
    assert played("✓ You 6⚔️ takes 6🪙")
    assert played("✓ 6⚔️")  # the Arabic catalog answers a played move with a tick
    assert not played("That button is out of date.")
    assert not played("")
    assert not played(None)


# ------------------------------------------------------------------------------------------------ bench/engine.py
def test_engine_bench_passes_whole_matches(capsys):
    engine_bench.throughput("kenza", 2)
    assert "2 matches" in capsys.readouterr().out
    assert 0.0 <= engine_bench.strength("kenza", 2) <= 1.0


def test_engine_bench_refuses_matches_cut_at_the_move_cap(capsys, monkeypatch):
    with pytest.raises(BrokenRun, match="2 of 2 matches hit the 5-move cap"):
        engine_bench.throughput("kenza", 2, max_moves=5)
    with pytest.raises(BrokenRun, match="kenza: 2 of 2 matches hit the 5-move cap"):
        engine_bench.strength("kenza", 2, max_moves=5)
    monkeypatch.setattr(engine_bench, "MAX_MOVES", 5)
    reason = refused(capsys, engine_bench.main, ["bench.engine", "--matches", "1", "--games", "kenza"], monkeypatch)
    assert "1 of 1 matches hit the 5-move cap" in reason
    assert "matches/s" not in capsys.readouterr().out


# ------------------------------------------------------------------------------------------------ bench/render.py
def test_picture_problem_names_each_kind_of_broken_picture():
    assert render_bench.picture_problem(png((640, 426)), (640, 426)) is None
    assert "does not decode" in render_bench.picture_problem(png((640, 426))[:200], (640, 426))
    assert "does not decode" in render_bench.picture_problem(b"", (640, 426))
    assert render_bench.picture_problem(png((640, 400)), (640, 426)) == "decodes to 640x400, expected 640x426"
    assert render_bench.picture_problem(png((640, 426), "JPEG"), (640, 426)) == "is JPEG, not PNG"
    assert render_bench.picture_problem(png((20, 20)), (20, 20)) == "is only 20x20"


@pytest.mark.parametrize("game_id", ["kenza", "canasta", "tunj"])
def test_render_bench_checks_every_picture_of_a_tiny_run(game_id, capsys):
    render_bench.measure(game_id, 2, "en", None)
    assert "mean PNG bytes" in capsys.readouterr().out


def test_render_bench_refuses_a_picture_that_does_not_decode(capsys, monkeypatch):
    real = renderers.render_rack
    monkeypatch.setattr(renderers, "render_rack", lambda *args, **kwargs: real(*args, **kwargs)[:-40])
    reason = refused(capsys, render_bench.main, ["render.py", "2", "--game", "kenza"], monkeypatch)
    assert "kenza rack 0: the PNG does not decode" in reason


def test_render_bench_refuses_a_picture_of_the_wrong_size(capsys, monkeypatch):
    real = renderers.render_table

    def shrunk(*args, **kwargs) -> bytes:
        image = Image.open(io.BytesIO(real(*args, **kwargs)))
        return renderers.encode_png(image.convert("RGB").resize((image.width, image.height // 2)))

    monkeypatch.setattr(renderers, "render_table", shrunk)
    reason = refused(capsys, render_bench.main, ["render.py", "2", "--game", "tunj"], monkeypatch)
    assert "tunj table 0: the PNG decodes to 740x351, expected 740x702" in reason


# ---------------------------------------------------------------------------------------------- bench/pipeline.py
PLATFORMS = ["telegram", "discord"]


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("game_id", ["kenza", "tunj"])
async def test_pipeline_bench_checks_each_move_of_a_tiny_run(platform, game_id):
    result = await pipeline_run(1, 2, platform, TABLES[game_id], 0.0)
    assert result.sample.moves == 2
    assert result.sample.all_moves >= 2


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_pipeline_bench_refuses_a_press_that_did_not_move_the_match(platform, monkeypatch):
    async def ignored(self, match_id, player_id, lang, **kwargs) -> Reply:
        return Reply(service_module.t(lang, "err.stale"), alert=True)

    monkeypatch.setattr(service_module.Service, "_human_move", ignored)
    with pytest.raises(BrokenRun, match=r"left the match at version (\d+) \(pressed on \1\)") as error:
        await pipeline_run(1, 2, platform, TABLES["kenza"], 0.0)
    assert "Played" not in str(error.value).split("answered")[1]


def answer_not_played(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service applies moves but answers them with something other than its "✓ You <move>" line."""
    real = play_module.t  # the "Played" line is written where moves are played (bot/core/play.py)
    monkeypatch.setattr(play_module, "t", lambda lang, key, **values: "OK" if key == "move.done"
                        else real(lang, key, **values))


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("game_id", ["kenza", "tunj"])
async def test_pipeline_bench_refuses_a_move_not_answered_played(platform, game_id, monkeypatch):
    answer_not_played(monkeypatch)
    with pytest.raises(BrokenRun, match="was answered 'OK', not \"✓ You ...\""):
        await pipeline_run(1, 2, platform, TABLES[game_id], 0.0)


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("game_id", ["kenza", "canasta"])
async def test_pipeline_bench_reads_each_answer_of_two_matches_at_once(platform, game_id, caplog):
    """Two matches interleave their updates and deliveries: each move is still checked against its own answer
    (not the other match's, not a "your turn" ping), and the run stops with no delivery left on a closed store."""
    result = await pipeline_run(2, 6, platform, TABLES[game_id], 0.0)
    assert result.sample.moves + result.sample.rejected >= 2 * 6 - 2
    assert result.sample.moves >= 6
    assert "no active connection" not in caplog.text


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_pipeline_bench_refuses_two_matches_whose_presses_do_not_move(platform, monkeypatch, caplog):
    async def ignored(self, match_id, player_id, lang, **kwargs) -> Reply:
        return Reply(service_module.t(lang, "err.stale"), alert=True)

    monkeypatch.setattr(service_module.Service, "_human_move", ignored)
    with pytest.raises(BrokenRun, match=r"left the match at version (\d+) \(pressed on \1\)"):
        await pipeline_run(2, 2, platform, TABLES["kenza"], 0.0)
    assert "no active connection" not in caplog.text


async def test_the_bench_server_keeps_each_chats_newest_calls_and_reads_an_answer_once():
    """The bench's fake Telegram keeps only each chat's newest calls, yet an update still finds all of its own:
    the calls to its chats after the mark it took, and its callback answer."""
    server = FakeTelegram(keep_uploads=False, history=3)
    for text in ("a", "b"):
        await server.handle("sendMessage", {"chat_id": 5, "text": text}, {})
    mark, other = server.chat_mark(5), server.chat_mark(6)
    for text in ("c", "d", "e"):
        await server.handle("sendMessage", {"chat_id": 5, "text": text}, {})
    await server.handle("sendMessage", {"chat_id": 6, "text": "x"}, {})
    await server.handle("answerCallbackQuery", {"callback_query_id": "q1", "text": "Played"}, {})
    assert [call.params["text"] for call in server.calls_to(5)] == ["c", "d", "e"]
    assert [call.params["text"] for call in server.calls_since(5, mark)] == ["c", "d", "e"]
    assert [call.params["text"] for call in server.calls_since(6, other)] == ["x"]
    assert server.calls_since(5, server.chat_mark(5)) == []
    assert server.callback_answer("q1").params["text"] == "Played"
    assert server.callback_answer("q1") is None
    assert server.calls == [], "no call of the run is kept beyond each chat's newest"


# ------------------------------------------------------------------------------------------- bench/press_cost.py
async def test_press_cost_bench_measures_every_press_of_a_tiny_run():
    result = await press_cost.run(4, 3.0, 0, warm=False)
    assert result.presses >= 4 and result.matches == 1
    assert result.calls["answerCallbackQuery"] == result.presses, "every press was answered once"
    assert result.main_seconds > 0 and result.rss > 0 and result.drawn > 0


async def test_press_cost_bench_refuses_a_press_that_did_not_move_the_match(monkeypatch):
    async def ignored(self, match_id, player_id, lang, **kwargs) -> Reply:
        return Reply(service_module.t(lang, "err.stale"))

    monkeypatch.setattr(service_module.Service, "_human_move", ignored)
    with pytest.raises(BrokenRun, match="did not move the match"):
        await press_cost.run(4, 3.0, 0, warm=False)
