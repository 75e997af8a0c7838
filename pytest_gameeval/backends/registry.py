"""The `gameeval/...` model providers, registered with inspect as one model API named "gameeval".

inspect resolves `--model gameeval/<name>` to ONE registered model API named "gameeval"
(the part before the first slash) with model_name "<name>"; this module dispatches on it:

- `gameeval/local[/WHICH]`       the embedded GGUF model (local_provider.LocalModelAPI); WHICH is a
                                 named model, a GGUF path or an identity (local_weights)
- `gameeval/scripted[/STRENGTH]` scripted game players behind inspect's model path
                                 (tests, baselines, benchmarks; see scripted_provider.py)
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ModelAPI, modelapi


class GameEvalModelAPI(ModelAPI):
    """Dispatcher: constructing it returns the concrete API for the model name."""

    def __new__(cls, model_name: str, *args: Any, **kwargs: Any) -> ModelAPI:  # type: ignore[misc]
        kind = model_name.split("/", 1)[0]
        if kind == "local":
            from pytest_gameeval.backends.local_provider import LocalModelAPI

            return LocalModelAPI(model_name, *args, **kwargs)
        if kind == "scripted":
            from pytest_gameeval.backends.scripted_provider import ScriptedModelAPI

            return ScriptedModelAPI(model_name, *args, **kwargs)
        from pytest_gameeval.inspect_ext.cli_errors import one_line_error

        raise one_line_error(
            f"gameeval: unknown model gameeval/{model_name}: use gameeval/local, gameeval/local/NAME-OR-PATH, "
            "gameeval/scripted or gameeval/scripted/STRENGTH"
        )


@modelapi(name="gameeval")
def gameeval() -> type[ModelAPI]:
    return GameEvalModelAPI
