"""No function in the package is over 60 lines (the team rule "functions under 60 lines"; issue 39).
A long function is split where its parts have names; only a data table written as one function
may stand longer, named below with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pytest_gameeval", "gameeval")
MAX_LINES = 60
# "path::function" -> why it is a data table and not logic. None today.
DATA_TABLES: dict[str, str] = {}
# "path::function" -> who is splitting it: the test fails once it is short, so an entry cannot outlive its reason
BEING_SPLIT: dict[str, str] = {}


def function_lengths(source: str) -> dict[str, int]:
    """qualified name -> lines from `def` to the function's last line, for every function and method."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lengths[prefix + child.name] = child.end_lineno - child.lineno + 1  # type: ignore[operator]
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return lengths


def package_lengths() -> dict[str, int]:
    return {f"{path.relative_to(ROOT).as_posix()}::{name}": n
            for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
            for name, n in function_lengths(path.read_text(encoding="utf-8")).items()}


def test_no_function_is_over_60_lines():
    long = {
        name: n
        for name, n in package_lengths().items()
        if n > MAX_LINES and name not in DATA_TABLES and name not in BEING_SPLIT
    }
    assert not long, (
        f"functions over {MAX_LINES} lines (split them, or name a data table in DATA_TABLES with its reason): {long}"
    )


@pytest.mark.parametrize("table", [*DATA_TABLES, *BEING_SPLIT])
def test_every_exception_is_still_needed_and_reasoned(table):
    lengths = package_lengths()
    assert table in lengths, f"{table} no longer exists: remove it from the list"
    assert lengths[table] > MAX_LINES, f"{table} is {lengths[table]} lines now: remove it from the list"
    assert (DATA_TABLES | BEING_SPLIT)[table].strip(), f"{table}: say why"


def test_the_count_sees_a_long_function_and_a_long_method():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    source = (
        f"def long():\n{body}\n\nclass C:\n    async def method(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n"
    )
    lengths = function_lengths(source)
    assert lengths["long"] == MAX_LINES + 1 and lengths["C.method"] == MAX_LINES + 1
