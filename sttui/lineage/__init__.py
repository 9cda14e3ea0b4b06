"""An episode's descendants: forking a recorded episode from a row (`forking`), telling which episodes are forks (`forks`) and refining a
recorded trajectory into a verified demonstration (`refining`)."""
