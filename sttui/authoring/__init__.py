"""Writing and validating tasks: `sttui check` (`checking`), its adversarial controls
(`adversary`), the authoring mistakes only a run shows (`mistakes`), the impossible-task search
(`reachability`), and `sttui new domain` (`scaffold`). Model-drafted milestones and tasks are in
`sttui.drafting`."""
