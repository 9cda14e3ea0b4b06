"""The Textual workbench. The only layer that imports textual."""
