"""The report's JSON Schema (schema.json, shipped in the package; docs/report-schema.md):
`gameeval report schema` prints it, and every report this package writes is checked against it
before it is written (a report that does not match is a bug: one error line, nothing written)."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError

SCHEMA_FILE = "schema.json"


def schema_text() -> str:
    return resources.files("pytest_gameeval.analysis.report").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@functools.cache
def _validator() -> Any:
    import jsonschema  # installed with inspect-ai

    schema = json.loads(schema_text())
    return jsonschema.Draft202012Validator(schema)


def schema_errors(report: Any) -> list[str]:
    """Every way `report` departs from the schema, each as 'PATH: message' (empty: it matches)."""
    errors = sorted(_validator().iter_errors(report), key=lambda e: list(e.absolute_path))
    return [f"{'.'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}" for e in errors]


def check_report(report: Any, where: str = "report") -> None:
    """One GameEvalError line naming the first departure from the schema."""
    errors = schema_errors(report)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise GameEvalError(f"{where}: does not match the report schema: {errors[0]}{more}")


def write_report(path: Any, report: dict[str, Any]) -> None:
    """The report as JSON (NaN as null), checked against the schema first, written atomically."""
    from pytest_gameeval.analysis.report.file import clean, write_json_atomic  # lazy: scipy

    data = clean(report)
    check_report(data, str(path))
    write_json_atomic(path, data)
