"""Bridges to the field's own tools: sttui's tasks run by Inspect AI (``inspect eval sttui/stt``)
and served as OpenEnv reinforcement-learning environments (``sttui rl serve``).

Both drive episodes through sttui's one runner (:func:`sttui.running.runner.drive`) with the actions a
model gets in ``sttui run``, so an episode's record and scores are the ones ``sttui run`` gives
on the same actions. Each bridge's library is an extra, imported only inside its module:
``inspect_tasks`` needs ``sttui[inspect]``, the three ``openenv_*`` modules ``sttui[rl]``.

- ``episodes``: what both share: choosing tasks, reading an action, the agent's observation,
  a steppable episode (:class:`Stepper`) and optional recording.
- ``inspect_tasks``: the Inspect tasks, solver and scorers (the ``inspect_ai`` entry point).
- ``openenv_env``: the OpenEnv environment, its server app, its client and a Gymnasium-style
  wrapper (the bridge's API); ``openenv_wire``: its action, observation and state models;
  ``openenv_sessions``: the served tasks, the table of live episodes and one episode.
"""
