"""The record: SQLModel tables and the only code that talks to the database."""
