"""The inspect front end: task factory, solver, scorer, model providers (gameeval/scripted and the
embedded gameeval/local with its loopback server), the live observer and log tools."""
