"""Pure domain: task models and loading, the engines, scoring. No UI, SQL or models."""
