"""Alembic's environment for the arena store: migrations run on the connection the store hands
over (store.migrate), never on a URL of their own, so SQLite and PostgreSQL take one path."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, version_table="arena_schema_version")
with context.begin_transaction():
    context.run_migrations()
