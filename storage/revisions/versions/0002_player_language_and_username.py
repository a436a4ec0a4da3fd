"""players remember their client's language and their @username (the hand-written runner's version 2)

Revision ID: 0002
Revises: 0001
"""

from storage.revisions.ddl import run

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # The language the user's app reports: their private messages follow it until they pick one.
        "ALTER TABLE players ADD COLUMN client_language TEXT",
        # For `/stats @name`: platforms mention users by a changeable handle, not by id.
        "ALTER TABLE players ADD COLUMN username TEXT",
        "CREATE INDEX players_username ON players (platform, lower(username))",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
