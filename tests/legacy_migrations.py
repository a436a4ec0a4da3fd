"""The schema, as an ordered list of migrations applied once each at start-up.

Rules for editing: never change a migration that has shipped; append a new one with the next version. Each
migration is a tuple of single statements rather than one script, because sqlite3's `executescript` commits
any open transaction first — which would let a half-applied migration be recorded as done.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import aiosqlite

from storage.errors import SchemaTooNew


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "initial schema",
        (
            # Ids from the chat platforms are stored as text: Telegram's are signed 64-bit, Discord's are
            # snowflakes, and a future platform may not use numbers at all.
            """CREATE TABLE players (
                id INTEGER PRIMARY KEY,
                platform TEXT NOT NULL,
                user_id TEXT NOT NULL,
                display_name TEXT NOT NULL,
                language TEXT,
                created REAL NOT NULL,
                UNIQUE (platform, user_id)
            )""",
            """CREATE TABLE chats (
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                language TEXT,
                defaults TEXT NOT NULL DEFAULT '{}',
                created REAL NOT NULL,
                PRIMARY KEY (platform, chat_id)
            )""",
            """CREATE TABLE matches (
                id INTEGER PRIMARY KEY,
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                options TEXT NOT NULL DEFAULT '{}',
                status TEXT NOT NULL DEFAULT 'lobby'
                    CHECK (status IN ('lobby', 'active', 'finished', 'cancelled')),
                seed INTEGER,
                snapshot TEXT,
                version INTEGER NOT NULL DEFAULT 0,
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                creator_id INTEGER REFERENCES players(id),
                deadline REAL,
                created REAL NOT NULL,
                updated REAL NOT NULL,
                finished REAL,
                result TEXT
            )""",
            # One open table per chat, enforced by the database so two racing /new commands cannot both win.
            """CREATE UNIQUE INDEX matches_one_open_per_chat ON matches (platform, chat_id)
                WHERE status IN ('lobby', 'active')""",
            "CREATE INDEX matches_by_status ON matches (status)",
            """CREATE TABLE seats (
                match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                player_id INTEGER REFERENCES players(id),
                bot_level TEXT,
                timeouts_in_a_row INTEGER NOT NULL DEFAULT 0,
                away INTEGER NOT NULL DEFAULT 0 CHECK (away IN (0, 1)),
                PRIMARY KEY (match_id, seat),
                CHECK ((player_id IS NULL) <> (bot_level IS NULL))
            )""",
            """CREATE UNIQUE INDEX seats_one_per_player ON seats (match_id, player_id)
                WHERE player_id IS NOT NULL""",
            """CREATE TABLE moves (
                match_id INTEGER NOT NULL REFERENCES matches(id),
                seq INTEGER NOT NULL CHECK (seq >= 1),
                seat INTEGER NOT NULL,
                actor TEXT NOT NULL CHECK (actor IN ('human', 'bot', 'timer')),
                move TEXT NOT NULL,
                at REAL NOT NULL,
                PRIMARY KEY (match_id, seq)
            ) WITHOUT ROWID""",
            # The move log is the replay and audit record; make rewriting it an error, not a convention.
            """CREATE TRIGGER moves_append_only_update BEFORE UPDATE ON moves
                BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END""",
            """CREATE TRIGGER moves_append_only_delete BEFORE DELETE ON moves
                BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END""",
            """CREATE TABLE messages (
                id INTEGER PRIMARY KEY,
                match_id INTEGER REFERENCES matches(id) ON DELETE CASCADE,
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                message_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                seat INTEGER,
                updated REAL NOT NULL
            )""",
            # A match's message slot is (match, kind, seat, platform) wherever it was posted (a rack may live in
            # a private chat); a message outside any match is keyed by its chat instead. NULL seats are folded
            # to -1 because UNIQUE treats NULLs as all different.
            """CREATE UNIQUE INDEX messages_match_slot ON messages (match_id, kind, ifnull(seat, -1), platform)
                WHERE match_id IS NOT NULL""",
            """CREATE UNIQUE INDEX messages_chat_slot ON messages (platform, chat_id, kind, ifnull(seat, -1))
                WHERE match_id IS NULL""",
            # Per mode as well as per game: the rules keep each mode's statistics apart (konkan-tiles.md);
            # leaderboards sum over modes unless asked for one.
            """CREATE TABLE stats (
                player_id INTEGER NOT NULL REFERENCES players(id),
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                played INTEGER NOT NULL DEFAULT 0,
                won INTEGER NOT NULL DEFAULT 0,
                drawn INTEGER NOT NULL DEFAULT 0,
                points INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (player_id, game, mode)
            )""",
        ),
    ),
    Migration(
        2,
        "players remember their client's language and their @username",
        (
            # The language the user's app reports: their private messages follow it until they pick one.
            "ALTER TABLE players ADD COLUMN client_language TEXT",
            # For `/stats @name`: platforms mention users by a changeable handle, not by id.
            "ALTER TABLE players ADD COLUMN username TEXT",
            "CREATE INDEX players_username ON players (platform, lower(username))",
        ),
    ),
    Migration(
        3,
        "find a player's table and the due timers without reading every match",
        (
            "CREATE INDEX seats_by_player ON seats (player_id)",
            "CREATE INDEX matches_due ON matches (deadline) WHERE status = 'active' AND deadline IS NOT NULL",
        ),
    ),
    Migration(
        4,
        "a pending-delivery mark: the version whose screens every player has been shown",
        (
            # A match whose version is above this still owes someone a screen (a rack, the table, a turn notice):
            # the move is stored, so the delivery resumes after a restart or crash. NULL: nothing delivered yet.
            "ALTER TABLE matches ADD COLUMN delivered_version INTEGER",
            # Matches over before this migration have nothing left to show.
            "UPDATE matches SET delivered_version = version WHERE status IN ('finished', 'cancelled')",
            """CREATE INDEX matches_undelivered ON matches (id) WHERE status IN ('active', 'finished')
                AND (delivered_version IS NULL OR delivered_version < version)""",
        ),
    ),
    Migration(
        5,
        "coin tables: a stake per match, a balance per player and a ledger of every coin moved",
        (
            # Coins per seat at a coin table; 0 is a free table (the only kind bots may sit at).
            "ALTER TABLE matches ADD COLUMN stake INTEGER NOT NULL DEFAULT 0 CHECK (stake >= 0)",
            # `grant_day` is the UTC day (YYYY-MM-DD) of the last daily grant; the balance can never go negative.
            """CREATE TABLE coins (
                player_id INTEGER PRIMARY KEY REFERENCES players(id),
                balance INTEGER NOT NULL CHECK (balance >= 0),
                grant_day TEXT NOT NULL
            )""",
            # Every change of a balance, so a pot can be paid out or refunded from what was really held.
            """CREATE TABLE coin_ledger (
                id INTEGER PRIMARY KEY,
                player_id INTEGER NOT NULL REFERENCES players(id),
                match_id INTEGER REFERENCES matches(id),
                delta INTEGER NOT NULL,
                reason TEXT NOT NULL CHECK (reason IN ('start', 'daily', 'stake', 'prize', 'refund')),
                at REAL NOT NULL
            )""",
            "CREATE INDEX coin_ledger_by_match ON coin_ledger (match_id) WHERE match_id IS NOT NULL",
        ),
    ),
    Migration(
        6,
        "the ranked ladder: rated tables, each rated result, each player's rating per game and mode, achievements",
        (
            # Whether the table was opened as a rated one (Konkan tiles `ranked`; other games where the chat turned
            # rating on). A rated table still feeds the ladder only if every seat is a human when it ends.
            "ALTER TABLE matches ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))",
            # One row per human of a rated match, in the order the ladder applied them (`seq`, one per match): the
            # stored results the ratings are folded from, and what `rebuild` folds again. mu/sigma are the
            # player's openskill rating after the match, kept to prove a rebuild reaches the same numbers.
            """CREATE TABLE rated_results (
                match_id INTEGER NOT NULL REFERENCES matches(id),
                player_id INTEGER NOT NULL REFERENCES players(id),
                seq INTEGER NOT NULL,
                seat INTEGER NOT NULL,
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                side INTEGER NOT NULL,
                place INTEGER NOT NULL,
                abandoned INTEGER NOT NULL DEFAULT 0 CHECK (abandoned IN (0, 1)),
                points INTEGER NOT NULL DEFAULT 0,
                outcome TEXT NOT NULL CHECK (outcome IN ('win', 'draw', 'loss')),
                rating_before INTEGER NOT NULL,
                mu REAL NOT NULL,
                sigma REAL NOT NULL,
                at REAL NOT NULL,
                PRIMARY KEY (match_id, player_id)
            )""",
            "CREATE INDEX rated_results_by_seq ON rated_results (seq)",
            "CREATE INDEX rated_results_by_player ON rated_results (player_id, game, mode)",
            # The fold of rated_results: one rating per player, game and mode; `rating` is the shown number
            # (storage/ladder.py), stored so a leaderboard page is one ordered, indexed query.
            """CREATE TABLE ratings (
                player_id INTEGER NOT NULL REFERENCES players(id),
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                mu REAL NOT NULL,
                sigma REAL NOT NULL,
                rating INTEGER NOT NULL,
                matches INTEGER NOT NULL DEFAULT 0,
                wins INTEGER NOT NULL DEFAULT 0,
                draws INTEGER NOT NULL DEFAULT 0,
                losses INTEGER NOT NULL DEFAULT 0,
                points INTEGER NOT NULL DEFAULT 0,
                streak INTEGER NOT NULL DEFAULT 0,
                best_streak INTEGER NOT NULL DEFAULT 0,
                updated REAL NOT NULL,
                PRIMARY KEY (player_id, game, mode)
            )""",
            "CREATE INDEX ratings_board ON ratings (game, mode, rating)",
            # Each achievement once per player, with the match that earned it.
            """CREATE TABLE achievements (
                player_id INTEGER NOT NULL REFERENCES players(id),
                code TEXT NOT NULL,
                match_id INTEGER REFERENCES matches(id),
                at REAL NOT NULL,
                PRIMARY KEY (player_id, code)
            )""",
        ),
    ),
    Migration(
        7,
        "tournaments: the event, its entries (a player or a team), their members and the bracket's games",
        (
            # One platform per tournament (its matches are that platform's matches). `chat_id` is where the operator
            # scheduled it; registration runs from `opens` to `closes`, the bracket is drawn at `starts`, and a
            # drawn game whose players have not all checked in after `grace` seconds is forfeited.
            """CREATE TABLE tournaments (
                id INTEGER PRIMARY KEY,
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                options TEXT NOT NULL DEFAULT '{}',
                team_size INTEGER NOT NULL CHECK (team_size IN (1, 2)),
                opens REAL NOT NULL,
                closes REAL NOT NULL,
                starts REAL NOT NULL,
                grace REAL NOT NULL CHECK (grace > 0),
                prize TEXT NOT NULL DEFAULT '',
                status TEXT NOT NULL DEFAULT 'registering'
                    CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
                champion INTEGER,
                created_by INTEGER REFERENCES players(id),
                created REAL NOT NULL,
                CHECK (opens <= closes AND closes <= starts)
            )""",
            "CREATE INDEX tournaments_by_status ON tournaments (platform, status)",
            # An entry plays its matches in the group it registered from (`chat_id`); `seed` is its place in the
            # draw (1 = the strongest), NULL until the bracket is drawn.
            """CREATE TABLE tournament_entries (
                id INTEGER PRIMARY KEY,
                tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
                chat_id TEXT NOT NULL,
                seed INTEGER,
                registered REAL NOT NULL
            )""",
            # A player is in at most one entry of a tournament.
            """CREATE TABLE tournament_members (
                tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
                entry_id INTEGER NOT NULL REFERENCES tournament_entries(id) ON DELETE CASCADE,
                player_id INTEGER NOT NULL REFERENCES players(id),
                position INTEGER NOT NULL,
                PRIMARY KEY (tournament_id, player_id),
                UNIQUE (entry_id, position)
            )""",
            # The bracket: game `slot` of `round` (both from 1) is fed by games 2*slot-1 and 2*slot of the round
            # before. `ready`: the players (JSON list of player ids) who checked in before `deadline`.
            """CREATE TABLE tournament_games (
                tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
                round INTEGER NOT NULL CHECK (round >= 1),
                slot INTEGER NOT NULL CHECK (slot >= 1),
                entry_a INTEGER REFERENCES tournament_entries(id),
                entry_b INTEGER REFERENCES tournament_entries(id),
                match_id INTEGER REFERENCES matches(id),
                deadline REAL,
                ready TEXT NOT NULL DEFAULT '[]',
                winner INTEGER REFERENCES tournament_entries(id),
                outcome TEXT CHECK (outcome IN ('played', 'bye', 'forfeit', 'draw')),
                PRIMARY KEY (tournament_id, round, slot)
            )""",
            "CREATE INDEX tournament_games_by_match ON tournament_games (match_id) WHERE match_id IS NOT NULL",
        ),
    ),
)

_BOOKKEEPING = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied REAL NOT NULL
)"""


def latest_version(migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
    """The version a fully migrated database reports."""
    return migrations[-1].version if migrations else 0


async def current_version(conn: aiosqlite.Connection) -> int:
    """The highest migration recorded in the database; 0 for a fresh file."""
    await conn.execute(_BOOKKEEPING)
    async with conn.execute("SELECT max(version) FROM schema_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


async def apply_migrations(
    conn: aiosqlite.Connection, migrations: tuple[Migration, ...] = MIGRATIONS
) -> list[int]:
    """Apply every migration newer than the database, each in its own transaction; return the versions applied.

    BEGIN IMMEDIATE before reading the version makes two processes starting at once take turns instead of both
    applying the same step. `conn` must be in autocommit mode (isolation_level=None).
    """
    _check_sequence(migrations)
    applied: list[int] = []
    for migration in migrations:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            have = await current_version(conn)
            if have > latest_version(migrations):
                raise SchemaTooNew(f"database schema is version {have}; this build knows up to "
                                   f"{latest_version(migrations)}")
            if migration.version > have:
                for statement in migration.statements:
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_version (version, name, applied) VALUES (?, ?, ?)",
                    (migration.version, migration.name, time.time()),
                )
                applied.append(migration.version)
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
    return applied


def _check_sequence(migrations: tuple[Migration, ...]) -> None:
    versions = [migration.version for migration in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migration versions must run 1, 2, 3, ... without gaps; got {versions}")
