"""The pytest front end: the plugin (options, collection, the gate), its runner, settings, journal
and terminal summary. Only the plugin module and what it imports load in every pytest run."""
