"""tournaments: scheduled, with entries (a player or a pair), members and a single-elimination bracket
(the hand-written runner's version 7, issue 15 part B; each table's comments are in tests/legacy_migrations.py)

Revision ID: 0007
Revises: 0006
"""

from storage.revisions.ddl import run

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        """CREATE TABLE tournaments (
                id {ID},
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                options TEXT NOT NULL DEFAULT '{{}}',
                team_size INTEGER NOT NULL CHECK (team_size IN (1, 2)),
                opens {REAL} NOT NULL,
                closes {REAL} NOT NULL,
                starts {REAL} NOT NULL,
                grace {REAL} NOT NULL CHECK (grace > 0),
                prize TEXT NOT NULL DEFAULT '',
                status TEXT NOT NULL DEFAULT 'registering'
                    CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
                champion INTEGER,
                created_by INTEGER REFERENCES players(id),
                created {REAL} NOT NULL,
                CHECK (opens <= closes AND closes <= starts)
            )""",
        "CREATE INDEX tournaments_by_status ON tournaments (platform, status)",
        """CREATE TABLE tournament_entries (
                id {ID},
                tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
                chat_id TEXT NOT NULL,
                seed INTEGER,
                registered {REAL} NOT NULL
            )""",
        """CREATE TABLE tournament_members (
                tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
                entry_id INTEGER NOT NULL REFERENCES tournament_entries(id) ON DELETE CASCADE,
                player_id INTEGER NOT NULL REFERENCES players(id),
                position INTEGER NOT NULL,
                PRIMARY KEY (tournament_id, player_id),
                UNIQUE (entry_id, position)
            )""",
        """CREATE TABLE tournament_games (
                tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
                round INTEGER NOT NULL CHECK (round >= 1),
                slot INTEGER NOT NULL CHECK (slot >= 1),
                entry_a INTEGER REFERENCES tournament_entries(id),
                entry_b INTEGER REFERENCES tournament_entries(id),
                match_id INTEGER REFERENCES matches(id),
                deadline {REAL},
                ready TEXT NOT NULL DEFAULT '[]',
                winner INTEGER REFERENCES tournament_entries(id),
                outcome TEXT CHECK (outcome IN ('played', 'bye', 'forfeit', 'draw')),
                PRIMARY KEY (tournament_id, round, slot)
            )""",
        "CREATE INDEX tournament_games_by_match ON tournament_games (match_id) WHERE match_id IS NOT NULL",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
