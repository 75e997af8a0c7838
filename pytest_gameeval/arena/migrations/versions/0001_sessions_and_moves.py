"""Sessions and their moves.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "arena_meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "arena_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("row_id", sa.String(200), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("player", sa.String(40), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("model_errors", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("outcome", sa.String(32), nullable=True),
        sa.Column("record", sa.Text, nullable=True),
    )
    op.create_index("arena_sessions_status", "arena_sessions", ["status", "game", "model"])
    op.create_table(
        "arena_moves",
        sa.Column("session_id", sa.String(64), sa.ForeignKey("arena_sessions.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("by_person", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("model_ms", sa.Float, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("arena_moves")
    op.drop_index("arena_sessions_status", "arena_sessions")
    op.drop_table("arena_sessions")
    op.drop_table("arena_meta")
