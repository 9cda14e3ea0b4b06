"""The record's files. Exports of recorded episodes: the full record (``jsonl``), training layouts (``openai``,
``sharegpt``), a Parquet dataset (``hf``) and Inspect AI logs (``inspect``).
Imports of a jsonl export (`importing`) and stored task versions with their trust
(`versions`) live here too.
"""
