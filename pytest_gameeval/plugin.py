"""The pytest plugin (entry point `gameeval`)."""
