"""initial schema (the hand-written runner's version 1)

Revision ID: 0001
Revises:
"""

from alembic import op

from storage.revisions.ddl import dialect, run

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TABLES = (
    # Ids from the chat platforms are stored as text: Telegram's are signed 64-bit, Discord's are
    # snowflakes, and a future platform may not use numbers at all.
    """CREATE TABLE players (
                id {ID},
                platform TEXT NOT NULL,
                user_id TEXT NOT NULL,
                display_name TEXT NOT NULL,
                language TEXT,
                created {REAL} NOT NULL,
                UNIQUE (platform, user_id)
            )""",
    """CREATE TABLE chats (
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                language TEXT,
                defaults TEXT NOT NULL DEFAULT '{{}}',
                created {REAL} NOT NULL,
                PRIMARY KEY (platform, chat_id)
            )""",
    """CREATE TABLE matches (
                id {ID},
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                options TEXT NOT NULL DEFAULT '{{}}',
                status TEXT NOT NULL DEFAULT 'lobby'
                    CHECK (status IN ('lobby', 'active', 'finished', 'cancelled')),
                seed {BIGINT},
                snapshot TEXT,
                version INTEGER NOT NULL DEFAULT 0,
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                creator_id INTEGER REFERENCES players(id),
                deadline {REAL},
                created {REAL} NOT NULL,
                updated {REAL} NOT NULL,
                finished {REAL},
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
                at {REAL} NOT NULL,
                PRIMARY KEY (match_id, seq)
            ){WITHOUT_ROWID}""",
)

# The move log is the replay and audit record; make rewriting it an error, not a convention.
APPEND_ONLY = {
    "sqlite": (
        """CREATE TRIGGER moves_append_only_update BEFORE UPDATE ON moves
                BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END""",
        """CREATE TRIGGER moves_append_only_delete BEFORE DELETE ON moves
                BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END""",
    ),
    "postgresql": (
        """CREATE FUNCTION moves_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'moves are append-only'; END $$""",
        """CREATE TRIGGER moves_append_only BEFORE UPDATE OR DELETE ON moves
                FOR EACH ROW EXECUTE FUNCTION moves_append_only()""",
    ),
}

MESSAGES_AND_STATS = (
    """CREATE TABLE messages (
                id {ID},
                match_id INTEGER REFERENCES matches(id) ON DELETE CASCADE,
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                message_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                seat INTEGER,
                updated {REAL} NOT NULL
            )""",
    # A match's message slot is (match, kind, seat, platform) wherever it was posted (a rack may live in
    # a private chat); a message outside any match is keyed by its chat instead. NULL seats are folded
    # to -1 because UNIQUE treats NULLs as all different.
    """CREATE UNIQUE INDEX messages_match_slot ON messages (match_id, kind, {IFNULL}(seat, -1), platform)
                WHERE match_id IS NOT NULL""",
    """CREATE UNIQUE INDEX messages_chat_slot ON messages (platform, chat_id, kind, {IFNULL}(seat, -1))
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
)


def upgrade() -> None:
    run(TABLES)
    for statement in APPEND_ONLY[dialect()]:
        op.execute(statement)
    run(MESSAGES_AND_STATS)


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
