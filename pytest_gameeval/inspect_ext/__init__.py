"""The inspect front end: task factory, solver, scorer, the live observer and progress, and log
tools. The `gameeval/...` model providers it evaluates with are in backends/."""
