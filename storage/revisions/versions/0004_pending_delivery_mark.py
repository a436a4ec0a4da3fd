"""a pending-delivery mark: the version whose screens every player has been shown (the runner's version 4)

Revision ID: 0004
Revises: 0003
"""

from storage.revisions.ddl import run

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # A match whose version is above this still owes someone a screen (a rack, the table, a turn notice):
        # the move is stored, so the delivery resumes after a restart or crash. NULL: nothing delivered yet.
        "ALTER TABLE matches ADD COLUMN delivered_version INTEGER",
        # Matches over before this migration have nothing left to show.
        "UPDATE matches SET delivered_version = version WHERE status IN ('finished', 'cancelled')",
        """CREATE INDEX matches_undelivered ON matches (id) WHERE status IN ('active', 'finished')
                AND (delivered_version IS NULL OR delivered_version < version)""",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
