"""pytest-gameeval: evaluate LLMs by making them play conversational games."""

__version__ = "0.6.0"



def __getattr__(name: str) -> object:
    """`pytest_gameeval.read_report`, loaded on first use (analysis/history/rows.py): every pytest run
    imports this package, and the games import it for `__version__`; by name, so neither reaches
    the analysis through it."""
    if name == "read_report":
        import importlib

        return importlib.import_module("pytest_gameeval.analysis.history.rows").read_report
    raise AttributeError(f"module 'pytest_gameeval' has no attribute {name!r}")
