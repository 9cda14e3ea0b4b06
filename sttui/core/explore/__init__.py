"""Hidden-rule exploration episodes (``kind: explore``), after AdaExploreBench."""
