"""coin tables: a stake per match, a balance per player and a ledger of every coin moved (the runner's version 5)

Revision ID: 0005
Revises: 0004
"""

from storage.revisions.ddl import run

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
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
                id {ID},
                player_id INTEGER NOT NULL REFERENCES players(id),
                match_id INTEGER REFERENCES matches(id),
                delta INTEGER NOT NULL,
                reason TEXT NOT NULL CHECK (reason IN ('start', 'daily', 'stake', 'prize', 'refund')),
                at {REAL} NOT NULL
            )""",
        "CREATE INDEX coin_ledger_by_match ON coin_ledger (match_id) WHERE match_id IS NOT NULL",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
