"""The layout shows the architecture (issues 21, 29): one folder per game, one folder per front end,
layers that import one way only (a table of which package may import which), no import cycle, an
engine that names no player implementation and no provider, and docs whose links lead somewhere."""

from __future__ import annotations

import ast
import re
from importlib import resources
from pathlib import Path

import grimp
import pytest

from pytest_gameeval.games.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "pytest_gameeval"
CORE = ("engine", "games", "players", "metrics")  # the layers every front end builds on
FRONT_ENDS = ("pytest_plugin", "inspect_ext", "analysis", "cli", "arena", "backends")  # and the backends they run
GAME_FILES = ("__init__.py", "rules.py", "prompts.py", "scripted.py", "metrics.py", "README.md")

# Which top-level package may import which (directly; lazy imports count). The engine is the ground:
# it holds the player contract (engine/player.py) and imports no other layer. A new package or a new
# arrow is a decision: add it here, pointing down.
_CORE = {"engine", "metrics", "players", "games"}
ALLOWED = {
    "engine": set(),
    "metrics": {"engine"},  # shared statistics over records
    "players": {"engine"},  # implementations of engine.player.Player
    "games": {"engine", "metrics"},  # rules, prompts, scripted policies, a game's metrics
    # model providers (the embedded server, the scripted provider) and the decoding they default to;
    # inspect_ext: its one-line error for inspect's command line
    "backends": _CORE | {"inspect_ext"},
    "inspect_ext": _CORE,
    "cli": _CORE | {"backends", "inspect_ext", "analysis", "pytest_plugin", "arena"},  # every command's entry
    # analysis and pytest_plugin import each other: the gate's --gameeval-gate-metric parser lives in
    # pytest_plugin/settings.py and the report/compare commands reuse it (a known wart)
    "analysis": _CORE | {"backends", "inspect_ext", "pytest_plugin"},
    "pytest_plugin": _CORE | {"backends", "inspect_ext", "analysis"},
    "arena": _CORE | {"backends", "inspect_ext", "analysis", "cli", "pytest_plugin"},
}
# model-name prefixes of providers (ours and inspect's): front ends and backends know them, never the engine
PROVIDER_PREFIXES = ("gameeval/", "openai/", "openai-api/", "anthropic/", "google/", "mockllm/", "hf/", "ollama/", "vllm/")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # lazy imports inside functions count too: an import that runs later is still a dependency
    return grimp.build_graph(PACKAGE, "gameeval", include_external_packages=True, exclude_type_checking_imports=True)


def _chain(graph: grimp.ImportGraph, importer: str, imported: str) -> tuple[str, ...] | None:
    """One shortest import chain from anything in package `importer` to anything in `imported`."""
    chains = graph.find_shortest_chains(importer=importer, imported=imported, as_packages=True)
    return sorted(chains)[0] if chains else None


@pytest.mark.parametrize("core", CORE)
@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_no_core_layer_imports_a_front_end(graph, core, front_end):
    chain = _chain(graph, f"{PACKAGE}.{core}", f"{PACKAGE}.{front_end}")
    assert chain is None, f"{core}/ reaches the front end {front_end}/: {' -> '.join(chain)}"


def _packages(graph: grimp.ImportGraph) -> list[str]:
    return sorted({m.split(".")[1] for m in graph.modules if m.startswith(f"{PACKAGE}.") and m.count(".") >= 1})


def test_every_package_has_a_row_in_the_dependency_table(graph):
    unknown = [p for p in _packages(graph) if p not in ALLOWED and (resources.files(PACKAGE) / p).is_dir()]
    assert not unknown, f"packages {unknown} are not in tests/test_layout.py's ALLOWED table: say what each may import"


def test_packages_import_only_what_the_table_allows(graph):
    packages = [p for p in _packages(graph) if p in ALLOWED]
    wrong = []
    for importer in packages:
        for imported in packages:
            if imported == importer or imported in ALLOWED[importer]:
                continue
            if graph.direct_import_exists(importer=f"{PACKAGE}.{importer}", imported=f"{PACKAGE}.{imported}", as_packages=True):
                wrong.append(f"{importer} -> {imported} ({' -> '.join(_chain(graph, f'{PACKAGE}.{importer}', f'{PACKAGE}.{imported}'))})")
    assert not wrong, "imports the table does not allow: " + "; ".join(wrong)


def test_engine_imports_no_player_implementation(graph):
    """The player contract lives in the engine; players/ implements it, the engine plays whoever it is given."""
    chain = _chain(graph, f"{PACKAGE}.engine", f"{PACKAGE}.players")
    assert chain is None, f"engine/ reaches players/: {' -> '.join(chain)}"


@pytest.mark.parametrize("path", sorted((ROOT / PACKAGE / "engine").glob("*.py")), ids=lambda p: p.name)
def test_engine_names_no_provider(path):
    """Which models decode with a schema, which model plays a reference seat: the front ends and
    backends decide and tell the engine (a player's `structured`, a binder)."""
    named = [node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and any(prefix in node.value for prefix in PROVIDER_PREFIXES)]
    assert not named, f"engine/{path.name} names a provider: {named}"


def test_shared_metrics_import_no_game(graph):
    chain = _chain(graph, f"{PACKAGE}.metrics", f"{PACKAGE}.games")
    assert chain is None, f"metrics/ reaches games/: {' -> '.join(chain)}"


@pytest.mark.parametrize("layer", ("engine", "games", "metrics"))
@pytest.mark.parametrize("outside", ("inspect_ai", "pytest", "openai", "xllamacpp"))
def test_rules_and_metrics_import_no_model_client_or_test_runner(graph, layer, outside):
    if outside not in graph.modules:
        pytest.skip(f"nothing in the package imports {outside}")
    chain = _chain(graph, f"{PACKAGE}.{layer}", outside)
    assert chain is None, f"{layer}/ reaches {outside}: {' -> '.join(chain)}"


def test_no_import_cycle(graph):
    ours = sorted(m for m in graph.modules if m.split(".")[0] in (PACKAGE, "gameeval"))
    cycles = [m for m in ours if any(graph.find_shortest_chain(importer=d, imported=m)
                                     for d in graph.find_modules_directly_imported_by(m) if d in ours)]
    assert not cycles, f"modules on an import cycle: {cycles}"


def test_package_root_holds_only_its_face():
    """Everything else lives in a folder saying what runs under whom; entry points name modules
    inside those folders (pyproject.toml)."""
    root = resources.files(PACKAGE)
    loose = sorted(p.name for p in root.iterdir() if p.name.endswith(".py"))
    assert loose == ["__init__.py"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_game_is_one_folder(game):
    assert GAMES[game] == f"{PACKAGE}.games.{game}"
    folder = resources.files(GAMES[game])
    missing = [name for name in GAME_FILES if not (folder / name).is_file()]
    assert not missing, f"games/{game}/ lacks {missing}"


def _markdown_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / PACKAGE).rglob("*.md"))]
    return [f for f in files if f.is_file()]


@pytest.mark.parametrize("doc", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(doc):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        if not (doc.parent / target.split("#")[0]).exists():
            broken.append(target)
    assert not broken, f"{doc.relative_to(ROOT)}: broken links {broken}"
