"""Exports of recorded episodes: the full record (``jsonl``), training layouts (``openai``,
``sharegpt``), a Parquet dataset (``hf``) and Inspect AI logs (``inspect``)."""
