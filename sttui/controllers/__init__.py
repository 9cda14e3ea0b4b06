"""Who acts in a seat: humans (fed by the UI), models (litellm) and baselines."""
