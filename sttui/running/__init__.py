"""Running episodes: the run plan (`plan`), the episode loop every controller acts through
(`runner`), headless batch runs (`batch`) and their sharding across processes (`sharding`), a
workbench play session (`session`), and recording episodes into the store and rebuilding them
(`recording`)."""
