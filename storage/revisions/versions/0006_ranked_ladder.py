"""the ranked ladder: rated tables, each rated result, each player's rating per game and mode, achievements
(the hand-written runner's version 6, issue 15 part A; each table's comments are in tests/legacy_migrations.py)

Revision ID: 0006
Revises: 0005
"""

from storage.revisions.ddl import run

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        "ALTER TABLE matches ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))",
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
                mu {REAL} NOT NULL,
                sigma {REAL} NOT NULL,
                at {REAL} NOT NULL,
                PRIMARY KEY (match_id, player_id)
            )""",
        "CREATE INDEX rated_results_by_seq ON rated_results (seq)",
        "CREATE INDEX rated_results_by_player ON rated_results (player_id, game, mode)",
        """CREATE TABLE ratings (
                player_id INTEGER NOT NULL REFERENCES players(id),
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                mu {REAL} NOT NULL,
                sigma {REAL} NOT NULL,
                rating INTEGER NOT NULL,
                matches INTEGER NOT NULL DEFAULT 0,
                wins INTEGER NOT NULL DEFAULT 0,
                draws INTEGER NOT NULL DEFAULT 0,
                losses INTEGER NOT NULL DEFAULT 0,
                points INTEGER NOT NULL DEFAULT 0,
                streak INTEGER NOT NULL DEFAULT 0,
                best_streak INTEGER NOT NULL DEFAULT 0,
                updated {REAL} NOT NULL,
                PRIMARY KEY (player_id, game, mode)
            )""",
        "CREATE INDEX ratings_board ON ratings (game, mode, rating)",
        """CREATE TABLE achievements (
                player_id INTEGER NOT NULL REFERENCES players(id),
                code TEXT NOT NULL,
                match_id INTEGER REFERENCES matches(id),
                at {REAL} NOT NULL,
                PRIMARY KEY (player_id, code)
            )""",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
