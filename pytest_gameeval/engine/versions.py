"""Each game's version and fingerprint, read from the installed package.

A game's version (an integer in `games/versions.json`, with a changelog entry in the game's
README) names what a report measured: the game's rules, prompts, reply formats, move checks and
metrics. Its fingerprint is a sha256 over the code and data that define those, so a change that
was not given a new version is caught by our tests (tests/games/test_versions.py) and shows in
every report as a version `N+dev.<fingerprint>`, which compares with no released version.

What the fingerprint covers (docs/versions.md says the same for readers):

- every `.py` file of the game's folder and every `.json`/`.jsonl` file of its `data/` folder
  (its READMEs are not: the changelog lives there);
- every module of the package that those modules import, directly or through each other, within
  `engine/`, `metrics/`, `players/` and `games/` (the shared voting and ballot code), plus the
  modules the turn loop and the model player import (`engine/play.py`: parse, validate, bounded
  re-prompt, forfeit; `players/model.py`: how a seat's prompt reaches a model). Imports only
  under `if TYPE_CHECKING:` do not count; the registry of game names does not either.
- never `transport/` (how a call travels and is accounted: fast path, heap tuning, retries,
  provider errors, billed tokens): no rule of a game; the byte-identical-body tests guard it.

Python source counts without its comments, docstrings, blank lines and trailing whitespace, and
every text with `\\n` line endings: the same bytes in a wheel and an editable install, on any
machine and Python version, and a reworded comment needs no new version.
"""

from __future__ import annotations

import ast
import hashlib
import json
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

PACKAGE = "pytest_gameeval"
TABLE = "games/versions.json"  # relative to the package: {"package": ..., "games": {game: {version, fingerprint}}}
SHARED = ("engine", "metrics", "players", "games")  # folders whose modules a game's fingerprint may include
ALWAYS = ("pytest_gameeval.engine.play", "pytest_gameeval.players.model")  # the turn loop, the model player
NOT_RULES = (
    "pytest_gameeval.games.registry",
    "pytest_gameeval.games",
    "pytest_gameeval.engine.versions",
)  # not how a game plays
DATA_SUFFIXES = (".json", ".jsonl")


def package_root() -> Traversable:
    return files(PACKAGE)


def _module_file(root: Traversable, module: str) -> Traversable | None:
    """The source file of `pytest_gameeval.a.b` under `root` (a.b.py or a/b/__init__.py)."""
    *folders, last = module.split(".")[1:]
    node = root
    for part in folders:
        node = node / part
    return next((c for c in (node / f"{last}.py", node / last / "__init__.py") if c.is_file()), None)


def _type_checking_only(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


_BODIES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _read_tree(tree: ast.Module) -> tuple[set[str], set[int], dict[int, list[tuple[int, int]]]]:
    """One walk over a module: the package modules it imports (with `from X import y`, both X and
    X.y: y may be a module; not under `if TYPE_CHECKING:`), its docstrings' lines, and per line
    the byte spans of string literals (a `#` inside one is no comment)."""
    imports: set[str] = set()
    docstrings: set[int] = set()
    strings: dict[int, list[tuple[int, int]]] = {}
    todo: list[tuple[ast.AST, bool]] = [(tree, False)]
    while todo:
        node, typing_only = todo.pop()
        typing_only = typing_only or _type_checking_only(node)
        if isinstance(node, ast.Import) and not typing_only:
            imports.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and not typing_only:
            imports.add(node.module)
            imports.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, _BODIES) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
        elif isinstance(node, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(node, "value", ""), (str, bytes)):
            end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
            for line in range(node.lineno, end_line + 1):
                strings.setdefault(line, []).append((node.col_offset if line == node.lineno else 0,
                                                     end_col if line == end_line else 1 << 30))
            continue  # an f-string's parts are inside its span
        todo.extend((child, typing_only) for child in ast.iter_child_nodes(node))
    return {m for m in imports if m.split(".")[0] == PACKAGE}, docstrings, strings


def _without_comment(line: str, spans: list[tuple[int, int]]) -> str:
    raw = line.encode()  # ast's columns count UTF-8 bytes
    at = raw.find(b"#")
    while at >= 0:
        if not any(start <= at < end for start, end in spans):
            return raw[:at].decode()
        at = raw.find(b"#", at + 1)
    return line


def normalize_code(source: str) -> tuple[str, set[str]]:
    """Python source as the fingerprint reads it (no comments, docstrings, blank lines or
    trailing whitespace; `\\n` line endings), and the package modules it imports."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    imports, docstrings, strings = _read_tree(ast.parse(source))
    kept = []
    for i, line in enumerate(source.split("\n"), 1):
        if i in docstrings:
            continue
        if "#" in line:
            line = _without_comment(line, strings.get(i, []))
        if line.strip():
            kept.append(line.rstrip())
    return "\n".join(kept), imports


def code_text(source: str) -> str:
    return normalize_code(source)[0]


def _text(node: Traversable) -> str:
    return node.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


class _Sources:
    """Module sources under one package root, parsed once."""

    def __init__(self, root: Traversable):
        self.root = root
        self.parsed: dict[str, tuple[str, set[str]] | None] = {}

    def module(self, name: str) -> tuple[str, set[str]] | None:
        """(code text, imported package modules) of a module, None if it is not a module file."""
        if name not in self.parsed:
            node = _module_file(self.root, name)
            if node is None:
                self.parsed[name] = None
            else:
                self.parsed[name] = normalize_code(_text(node))
        return self.parsed[name]

    def closure(self, starts: list[str]) -> dict[str, str]:
        """module -> code text of every shared module reachable from `starts`."""
        seen: dict[str, str] = {}
        todo = list(starts)
        while todo:
            name = todo.pop()
            parts = name.split(".")
            if name in seen or name in NOT_RULES or len(parts) < 3 or parts[1] not in SHARED:
                continue
            parsed = self.module(name)
            if parsed is None:
                continue
            seen[name] = parsed[0]
            todo.extend(parsed[1])
        return seen


def _game_files(folder: Traversable, prefix: str) -> dict[str, str]:
    """relative path -> text of the game folder's .py files and data/*.json(l) files."""
    out: dict[str, str] = {}
    for node in folder.iterdir():
        name = node.name
        if name.startswith((".", "__pycache__")):
            continue
        if node.is_dir():
            if name == "data":
                out.update({f"{prefix}/data/{d.name}": _text(d) for d in node.iterdir()
                            if d.is_file() and d.name.endswith(DATA_SUFFIXES) and not d.name.startswith(".")})
            else:
                out.update(_game_files(node, f"{prefix}/{name}"))
        elif name.endswith(".py"):
            out[f"{prefix}/{name}"] = code_text(_text(node))
    return out


@lru_cache(maxsize=None)
def _installed_sources() -> _Sources:
    return _Sources(package_root())


def fingerprint_parts(
    game_package: str, root: Traversable | None = None, sources: _Sources | None = None
) -> dict[str, str]:
    """What a game's fingerprint covers: relative path (or module name) -> normalised text."""
    sources = sources or (_installed_sources() if root is None else _Sources(root))
    root = sources.root
    folder = root if game_package.startswith(PACKAGE + ".") else files(game_package)  # a game outside the package
    for part in game_package.split(".")[1:] if game_package.startswith(PACKAGE + ".") else []:
        folder = folder / part
    parts = _game_files(folder, game_package.replace(".", "/"))
    own = [p[:-3].replace("/", ".").removesuffix(".__init__") for p in parts if p.endswith(".py")]
    for name, text in sources.closure([*own, *ALWAYS]).items():
        if not name.startswith(game_package + ".") and name != game_package:
            parts[name] = text
    return parts


def fingerprint(game_package: str, root: Traversable | None = None, sources: _Sources | None = None) -> str:
    digest = hashlib.sha256()
    for name, text in sorted(fingerprint_parts(game_package, root, sources).items()):
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()


def fingerprints(game_packages: list[str], root: Traversable | None = None) -> dict[str, str]:
    """Several games' fingerprints, reading each shared module once."""
    sources = _installed_sources() if root is None else _Sources(root)
    return {p: fingerprint(p, sources=sources) for p in game_packages}


@lru_cache(maxsize=None)
def installed_fingerprint(game_package: str) -> str:
    return fingerprint(game_package)


def read_table(root: Traversable | None = None) -> dict[str, Any]:
    node = (root or package_root()) / TABLE
    return json.loads(_text(node)) if node.is_file() else {"package": None, "games": {}}


@lru_cache(maxsize=None)
def _installed_table() -> dict[str, Any]:
    return read_table()


def game_version(game: str, game_package: str) -> str:
    """The version a report records for a game: its declared version when the installed code is
    the code that version names, else `N+dev.<fingerprint[:8]>` (a changed or unversioned game),
    which equals no released version."""
    entry = _installed_table()["games"].get(game) or {}
    declared, expected = entry.get("version"), entry.get("fingerprint")
    actual = installed_fingerprint(game_package)
    if declared is not None and actual == expected:
        return str(declared)
    return f"{declared or 0}+dev.{actual[:8]}"
