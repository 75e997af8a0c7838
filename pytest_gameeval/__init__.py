"""pytest-gameeval: evaluate LLMs by making them play conversational games."""

__version__ = "0.6.0"
