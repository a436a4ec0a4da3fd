"""`majlis db copy|backup|check`: the operator's database commands, with what only the bot's code can check.

storage/transfer.py, storage/backup.py and storage/integrity.py move and inspect rows; a copy or a check is then
judged by what the rows mean: the ratings folded again from the rated results (`majlis ratings check`) and every
finished match played again from its move log up to its stored final state (bot/replay.py, as `/replay` does).
A copy that passes both is one the bot can go on from.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TextIO

from sqlalchemy import select

from bot import replay
from bot.i18n import t, tn
from storage import Store
from storage.schema import matches

BAR = 30  # characters of the progress bar


class TerminalProgress:
    """A plain progress bar per table on a terminal (`\\r`-redrawn, one finished line per table); elsewhere (a log,
    a pipe) one line per table when it is done, so the output stays readable."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()

    def __call__(self, table: str, done: int, total: int) -> None:
        if not self.live and done < total:
            return
        filled = BAR if total == 0 else BAR * done // total
        line = f"{table:<20} [{'#' * filled}{'.' * (BAR - filled)}] {done}/{total}"
        if self.live:
            self.stream.write("\r" + line + ("\n" if done >= total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


@dataclass
class Meaning:
    """What the rows say when read as the bot reads them: the ratings fold and the replays."""

    rated_matches: int = 0
    ratings: int = 0
    rating_differences: list[str] = field(default_factory=list)
    replayed: int = 0
    replay_failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.rating_differences and not self.replay_failures


async def check_meaning(store: Store) -> Meaning:
    """Ratings compared with their fold (nothing written) and every finished match replayed from its log."""
    report = await store.rebuild_ratings(write=False)
    meaning = Meaning(report.matches, report.ratings, list(report.differences))
    finished = await store.run(lambda db: [row[0] for row in db.execute(
        select(matches.c.id).where(matches.c.status == "finished").order_by(matches.c.id))], write=False)
    for match_id in finished:
        match = await store.get_match(match_id)
        assert match is not None
        seats, moves = await store.seats(match_id), await store.moves(match_id)
        try:
            replay.states(match, len(seats), moves)
        except replay.ReplayMismatch as error:
            meaning.replay_failures.append(str(error))
        except Exception as error:  # noqa: BLE001 - a game this build no longer has, a log the engine cannot read
            meaning.replay_failures.append(f"match {match_id}: {type(error).__name__}: {error}")
        else:
            meaning.replayed += 1
    return meaning


def meaning_lines(lang: str, meaning: Meaning) -> list[str]:
    lines = [tn(lang, "ladder.cli_summary", meaning.rated_matches, ratings=meaning.ratings)]
    lines += ["  " + line for line in meaning.rating_differences]
    if meaning.rating_differences:
        lines.append(tn(lang, "ladder.cli_differ", len(meaning.rating_differences)))
    else:
        lines.append(t(lang, "ladder.cli_identical"))
    lines.append(tn(lang, "dbverify.replayed", meaning.replayed))
    lines += [t(lang, "dbverify.replay_failed", reason=failure) for failure in meaning.replay_failures]
    return lines


async def open_checked(url: str) -> Store:
    """The store at `url` as the bot opens it, refusing a SQLite file that is not there."""
    return await Store.open(url, create=False)


def _say(line: str, stream: TextIO | None = None) -> None:
    print(line, file=stream if stream is not None else sys.stdout, flush=True)


def _refused_line(lang: str, error: Exception) -> str:
    from storage.errors import DatabaseUnusable
    from storage.transfer import CopyRefused

    if isinstance(error, CopyRefused):
        return t(lang, error.reason, detail=error.detail)
    assert isinstance(error, DatabaseUnusable)
    from bot.cli import unusable_line

    return unusable_line(lang, error)


async def copy_command(lang: str, source: str, target: str, resume: bool) -> int:
    """`majlis db copy SOURCE TARGET [--resume]`: 0 when the copy is complete and its ratings and replays check
    out, 1 when it was made but does not check out, 2 when it was refused or could not be made."""
    from storage.errors import DatabaseUnusable
    from storage.transfer import CopyRefused, copy_database

    try:
        report = await copy_database(source, target, resume=resume, progress=TerminalProgress())
    except (CopyRefused, DatabaseUnusable) as error:
        _say(_refused_line(lang, error), sys.stderr)
        return 2
    if report.skipped:
        _say(t(lang, "dbcopy.skipped", tables=", ".join(report.skipped)))
    if report.mismatched:  # rows came in meanwhile (another writer on the target): say which tables
        _say(t(lang, "dbcopy.counts_differ", tables=", ".join(
            f"{name} {report.source[name]}/{report.target.get(name)}" for name in report.mismatched)))
        return 1
    _say(tn(lang, "dbcopy.copied", sum(report.target.values()), tables=len(report.target)))
    store = await open_checked(target)
    try:
        meaning = await check_meaning(store)
    finally:
        await store.close()
    for line in meaning_lines(lang, meaning):
        _say(line)
    return 0 if meaning.ok else 1


async def backup_command(lang: str, path: str) -> int:
    """`majlis db backup PATH`: the database of $DATABASE_URL copied, consistently, into a new SQLite file."""
    from storage.backup import backup
    from storage.errors import DatabaseUnusable
    from storage.transfer import CopyRefused
    from storage.url import raw_url

    try:
        size = await backup(raw_url(), path, progress=TerminalProgress())
    except (CopyRefused, DatabaseUnusable) as error:
        _say(_refused_line(lang, error), sys.stderr)
        return 2
    _say(t(lang, "dbbackup.done", path=path, size=size))
    return 0


async def check_command(lang: str) -> int:
    """`majlis db check`: the structure (storage/integrity.py), then, on a schema at head, the ratings and the
    replays. 0: no problem; 1: problems, each on a line; 2: the database cannot be opened."""
    from storage.errors import DatabaseUnusable
    from storage.integrity import check_structure
    from storage.migrate import head_number
    from storage.url import MEMORY, database_target, raw_url

    url = raw_url()
    try:
        target = database_target(url)
        if target.is_sqlite and (target.where == MEMORY or not os.path.exists(target.where)):
            raise DatabaseUnusable(target.where, "db.missing", "there is no database file there")
        structure = await check_structure(url)
    except DatabaseUnusable as error:
        _say(_refused_line(lang, error), sys.stderr)
        return 2
    _say(t(lang, "dbcheck.revision", where=target.where,
           revision="-" if structure.revision is None else f"{structure.revision:04d}", head=f"{head_number():04d}"))
    problems = [t(lang, finding.reason, detail=finding.detail) for finding in structure.findings]
    for line in problems:
        _say("  " + line)
    if structure.at_head and not any(f.reason == "dbcheck.damaged" for f in structure.findings):
        store = await open_checked(url)
        try:
            meaning = await check_meaning(store)
        finally:
            await store.close()
        for line in meaning_lines(lang, meaning):
            _say(line)
        problems += meaning.rating_differences + meaning.replay_failures
    if problems:
        _say(tn(lang, "dbcheck.problems", len(problems)))
        return 1
    _say(t(lang, "dbcheck.ok"))
    return 0
