"""The layout shows the architecture (issue 21): one folder per game, one folder per front end,
layers that import one way only, no import cycle, and docs whose links lead somewhere."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import grimp
import pytest

from pytest_gameeval.games.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "pytest_gameeval"
CORE = ("engine", "games", "players", "metrics")  # the layers every front end builds on
FRONT_ENDS = ("pytest_plugin", "inspect_ext", "analysis", "cli", "arena")
GAME_FILES = ("__init__.py", "rules.py", "prompts.py", "scripted.py", "metrics.py", "README.md")


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
