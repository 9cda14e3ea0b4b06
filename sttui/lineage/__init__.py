"""An episode's descendants: forking a recorded episode from a row (`forking`) and refining a
recorded trajectory into a verified demonstration (`refining`)."""
