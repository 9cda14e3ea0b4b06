"""Reading the record as results: `sttui report`'s controllers side by side (`comparison`) and
pass rates across task versions (`version_shifts`). The statistics themselves are pure, in
`sttui.core.stats`."""
