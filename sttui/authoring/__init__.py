"""Writing and validating tasks: `sttui check` (`checking`), its adversarial controls
(`adversary`), the authoring mistakes only a run shows (`mistakes`), the impossible-task search
(`reachability`), `sttui new domain` (`scaffold`), and the baselines' difficulty per task
(`difficulty`, `sttui tasks --difficulty`). Model-drafted milestones and tasks are in
`sttui.drafting`."""
