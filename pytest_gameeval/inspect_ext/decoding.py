"""Whether a seat decodes with its turn's reply schema: the `structured` option resolved, once, when
a front end makes the seat's player. The player carries the answer (`Player.structured`); the
engine and the record only read it.

`auto` is on for the providers listed here and off for every other: the embedded model's grammar
costs nothing and a small model needs it, while a hosted model writes the format on its own and
not every provider honours a response schema.
"""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, Model

from pytest_gameeval.engine.replies import STRUCTURED_CHOICES
from pytest_gameeval.players.model import ModelPlayer

# model-name prefixes whose models decode with the reply schema under structured=auto: the embedded
# model (backends/local_weights.LOCAL_PREFIX; named here, since backends/ builds on inspect_ext/)
SCHEMA_BY_DEFAULT = ("gameeval/local",)


def resolve_structured(choice: str, model_name: str) -> bool:
    """Whether a seat played by `model_name` gets constrained decoding under `choice` (auto/on/off).
    The pytest front end also asks it before playing, from the model names it was given, to check a
    baseline's decoding."""
    if choice not in STRUCTURED_CHOICES:
        raise ValueError(f"structured must be one of {', '.join(STRUCTURED_CHOICES)}, not {choice!r}")
    if choice == "auto":
        return model_name.startswith(SCHEMA_BY_DEFAULT)
    return choice == "on"


def model_player(model: Model, choice: str, config: GenerateConfig | None = None, *,
                 reference: bool = False, self_play: bool = False) -> ModelPlayer:
    """A seat played by `model`, decoding with the reply schema as `choice` resolves for it."""
    return ModelPlayer(model, config, structured=resolve_structured(choice, str(model)), reference=reference,
                       self_play=self_play)
