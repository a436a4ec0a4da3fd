"""players can be banned by the bot's operators (/ban, /unban)

Revision ID: 0012
Revises: 0009
"""

from storage.revisions.ddl import run

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # When an operator (MAJLIS_OPERATORS) banned the account; NULL: not banned. On the player row, which every
        # press and command reads already, so a ban costs the hot path no extra read.
        "ALTER TABLE players ADD COLUMN banned_at {REAL}",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
