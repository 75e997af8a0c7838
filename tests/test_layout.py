"""The layout shows the architecture (issues 21, 29, 39): one folder per game, one folder per front end,
layers that import down only (the layers, exactly the package arrows the code has, and the declared
interfaces for any arrow beside or up), no import of another package's private name, no import
cycle, an engine that names no player implementation and no provider, and docs whose links lead
somewhere."""

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

# The layers, ground first. A package imports packages of lower layers; an import beside it (a package
# of its own layer) or above it goes only through a declared interface (INTERFACES). A new package or a
# new arrow is a decision: give the package a layer and add the arrow to ALLOWED.
ROOMS = ("analysis",)  # packages split into rooms by concern (issue 55): each room is a row of the tables
LAYERS = (
    ("engine",),  # the ground: seats, events, views, the player contract, the turn loop, records
    # how a model call travels and is accounted (fast path, heap, retries, provider errors, usage):
    # no rule of any game, so outside every game's fingerprint
    ("transport",),
    ("metrics", "players"),  # statistics shared over records; implementations of engine.player.Player
    ("games",),  # rules, prompts, scripted policies, a game's metrics
    ("published",),  # the papers' own published games, read and replayed through our rules
    # fresh cases drawn from the lexicon in the wheel, as data files in a game's format (issue 61):
    # data, not rules, so outside every game's fingerprint
    ("fresh",),
    # our side of inspect: the task, solver and scorer, and how a model plays a seat (decoding);
    # the model providers inspect loads (gameeval/local, gameeval/scripted)
    ("inspect_ext", "backends"),
    # analysis/, over many records or reports, in rooms (issue 55; each room's __init__ says what it
    # owns and may import): a game's verdict and what a run costs side by side and apart (an arrow
    # between them either way only through INTERFACES), the report over both, and what reads reports
    # or records over the report
    ("analysis.verdicts", "analysis.cost"),  # each metric's test, a game's verdict, the gate; prices, spend, estimates
    ("analysis.report",),  # the report file: written, validated, read, merged, diffed
    ("analysis.rejudge", "analysis.rankings"),  # records judged again; compare, tournaments, leaderboard, validity
    ("analysis.history",),  # the store of runs, the baseline chosen from it, runs read as a trend (issue 58)
    # the run's core under the fronts (issue 63): settings, the plan, cases played many at once, the
    # journal, the budget, the report lock, exit codes; no pytest in it
    ("run",),
    ("pytest_plugin", "arena"),  # the front ends that play games for a user and write reports
    ("cli",),  # every command's entry
)
# Which top-level package imports which (directly; lazy imports count): exactly the arrows the code
# has, so an arrow that appears or disappears is seen here.
ALLOWED = {
    "engine": set(),
    "metrics": {"engine"},
    "transport": {"engine"},
    "players": {"engine", "transport"},
    "games": {"engine", "metrics"},
    "published": {"engine", "metrics", "games", "players"},
    "fresh": {"engine"},
    "inspect_ext": {"engine", "transport", "metrics", "players", "games", "fresh"},
    "backends": {"engine", "games", "inspect_ext"},
    "analysis.verdicts": {"metrics"},
    "analysis.cost": {"engine", "players", "games", "inspect_ext", "analysis.verdicts"},
    "analysis.report": {"engine", "metrics", "players", "games", "fresh", "analysis.verdicts", "analysis.cost"},
    "analysis.rejudge": {"engine", "players", "games", "published", "analysis.report"},
    "analysis.rankings": {"engine", "metrics", "players", "games", "fresh", "inspect_ext", "backends",
                          "analysis.verdicts", "analysis.cost", "analysis.report"},
    "analysis.history": {"engine", "games", "analysis.verdicts", "analysis.report", "analysis.rejudge"},
    # the run binds models to seats as inspect_ext does: the retry defaults and provider errors are transport's
    "run": {"engine", "transport", "games", "fresh", "inspect_ext",
            "analysis.verdicts", "analysis.cost", "analysis.report"},
    "pytest_plugin": {"engine", "transport", "metrics", "games", "fresh", "backends", "run",
                      "analysis.verdicts", "analysis.cost", "analysis.report", "analysis.history"},
    # the arena opens its models itself: with --workers each worker process does (arena/serve.py)
    "arena": {"engine", "metrics", "players", "games", "inspect_ext", "backends", "analysis.cost",
              "analysis.report"},
    "cli": {"engine", "transport", "metrics", "games", "published", "fresh", "inspect_ext", "backends",
            "analysis.verdicts", "analysis.cost", "analysis.report", "analysis.rejudge", "analysis.rankings",
            "analysis.history", "run", "arena"},  # never pytest_plugin: the run's core is run/ (issue 63)
}
# (importer, imported) -> (the modules it may import, why): the arrows that do not point down.
# A row is a top-level package, or a room of a package split into rooms (ROOMS): `analysis.cost`.
INTERFACES = {
    ("backends", "inspect_ext"): (
        {f"{PACKAGE}.inspect_ext.cli_errors"},
        "a provider's bad model name or model argument is inspect's one-line error, whatever inspect's display",
    ),
    ("analysis.cost", "analysis.verdicts"): (
        {f"{PACKAGE}.analysis.verdicts.gate"},
        "the estimate of a gated run (estimate.replayed_gate_games) replays the sequential gate's looks on "
        "the baseline's cases: what the gate will stop at is the gate's own code",
    ),
}
# model-name prefixes of providers (ours and inspect's): front ends and backends know them, never the engine
PROVIDER_PREFIXES = (
    "gameeval/",
    "openai/",
    "openai-api/",
    "anthropic/",
    "google/",
    "mockllm/",
    "hf/",
    "ollama/",
    "vllm/",
)


def room(module: str) -> str | None:
    """A module's row in the tables: its top-level package, or for a package split into rooms
    (ROOMS) its room, e.g. `analysis.report`; None for the package root and a split package's own
    __init__ (which holds only its docstring)."""
    parts = module.split(".")
    if parts[0] != PACKAGE or len(parts) < 2:
        return None
    if parts[1] in ROOMS:
        return ".".join(parts[1:3]) if len(parts) > 2 else None
    return parts[1]


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
    return sorted({r for m in graph.modules if (r := room(m))})


def test_every_package_has_a_row_in_the_dependency_table(graph):
    unknown = [p for p in _packages(graph)
               if p not in ALLOWED and (resources.files(PACKAGE) / p.replace(".", "/")).is_dir()]
    assert not unknown, f"packages {unknown} are not in tests/test_layout.py's ALLOWED table: say what each may import"
    layered = [p for layer in LAYERS for p in layer]
    assert sorted(layered) == sorted(ALLOWED), "every package in ALLOWED has exactly one layer in LAYERS"


def _imports(graph: grimp.ImportGraph) -> dict[tuple[str, str], set[str]]:
    """(importer row, imported row) -> the modules of `imported` that `importer` imports (a row: a
    package, or a room of a split package)."""
    arrows: dict[tuple[str, str], set[str]] = {}
    for module in graph.modules:
        if (importer := room(module)) is None:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            if (target := room(imported)) is not None and target != importer:
                arrows.setdefault((importer, target), set()).add(imported)
    return arrows


def layout_problems(
    arrows: dict[tuple[str, str], set[str]],
    allowed: dict[str, set[str]],
    layers: tuple[tuple[str, ...], ...],
    interfaces: dict[tuple[str, str], tuple[set[str], str]],
) -> list[str]:
    """What is wrong with the package arrows `arrows` against the table: an arrow the table does not
    list, a listed arrow the code no longer has, an arrow beside or up without a declared interface,
    an import outside its interface, an interface the code no longer uses or without a reason."""
    level = {p: i for i, layer in enumerate(layers) for p in layer}
    listed = {(a, b) for a, targets in allowed.items() for b in targets}
    problems = [
        f"{a} -> {b} is not in ALLOWED ({', '.join(sorted(arrows[a, b]))})" for a, b in sorted(set(arrows) - listed)
    ]
    problems += [f"{a} -> {b} is in ALLOWED but no code imports it" for a, b in sorted(listed - set(arrows))]
    for (a, b), modules in sorted(arrows.items()):
        if (a, b) in interfaces:
            declared, reason = interfaces[a, b]
            problems += [
                f"{a} -> {m}: outside the declared interface {sorted(declared)}" for m in sorted(modules - declared)
            ]
            problems += [
                f"{a} -> {m}: declared as an interface, no code imports it" for m in sorted(declared - modules)
            ]
            if not reason.strip():
                problems.append(f"{a} -> {b}: an interface without its reason")
        elif level.get(b, len(layers)) >= level.get(a, -1):
            where = "beside" if level.get(b) == level.get(a) else "above"
            problems.append(
                f"{a} -> {b} imports a package {where} it without a declared interface ({', '.join(sorted(modules))})"
            )
    problems += [
        f"{a} -> {b}: interface declared for an arrow the code does not have"
        for a, b in sorted(set(interfaces) - set(arrows))
    ]
    return problems


def test_packages_import_only_what_the_table_allows(graph):
    problems = layout_problems(_imports(graph), ALLOWED, LAYERS, INTERFACES)
    assert not problems, "the import table and the code disagree: " + "; ".join(problems)


def test_analysis_holds_only_its_rooms(graph):
    """analysis/ is split by concern (issue 55): the folder holds its __init__ and the rooms; each room
    has a row in the tables and a docstring saying what it owns and may import; no module repeats its
    room's name as a prefix; nothing imports the folder itself."""
    for split in ROOMS:
        folder = resources.files(PACKAGE) / split
        loose = sorted(p.name for p in folder.iterdir() if p.name.endswith(".py") and p.name != "__init__.py")
        assert not loose, f"{split}/ holds modules outside its rooms: {loose}"
        rooms = sorted(p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file())
        assert [f"{split}.{r}" for r in rooms] == sorted(r for r in ALLOWED if r.startswith(f"{split}."))
        for r in rooms:
            doc = ast.get_docstring(ast.parse((folder / r / "__init__.py").read_text(encoding="utf-8"))) or ""
            assert "import" in doc, f"{split}/{r}/__init__.py: say what the room owns and what it may import"
            stems = {r, r.removesuffix("s")}
            named = [p.name for p in (folder / r).iterdir() if p.name.endswith(".py")
                     and any(p.name[:-3] == s or p.name.startswith(f"{s}_") for s in stems)]
            assert not named, f"{split}/{r}/: the folder already says {r}: {named}"
        assert not graph.find_modules_that_directly_import(f"{PACKAGE}.{split}"), f"{split}/ itself is imported"


def test_costs_and_verdicts_stay_apart(graph):
    """What a run costs and what a game's verdict is never import each other but through a declared
    interface: the two rooms share a layer, so any other arrow between them fails the table above."""
    level = {p: i for i, layer in enumerate(LAYERS) for p in layer}
    assert level["analysis.cost"] == level["analysis.verdicts"]
    found = _imports(graph)
    for pair in (("analysis.cost", "analysis.verdicts"), ("analysis.verdicts", "analysis.cost")):
        declared = INTERFACES.get(pair, (set(), ""))[0]
        assert found.get(pair, set()) <= declared, f"{' -> '.join(pair)} outside INTERFACES: {found[pair] - declared}"
    assert not (found.keys() >= {("analysis.cost", "analysis.verdicts"), ("analysis.verdicts", "analysis.cost")})


def test_no_cycle_between_packages_or_rooms(graph):
    """The rows of the tables import each other without a cycle (the module cycle check is below)."""
    targets: dict[str, set[str]] = {}
    for a, b in _imports(graph):
        targets.setdefault(a, set()).add(b)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for t in targets.get(todo.pop(), ()):
                if t == goal:
                    return True
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return False

    cycles = sorted(p for p in targets if reaches(p, p))
    assert not cycles, f"packages or rooms on an import cycle: {cycles}"


def test_layout_check_fails_on_an_undeclared_or_stale_arrow():
    """The check itself can fail: an arrow the table lacks, an arrow the table lists that the code no
    longer has, a sideways arrow without an interface, an import past its interface, a stale interface."""
    layers = (("low",), ("left", "right"))
    allowed = {"low": set(), "left": {"low", "right"}, "right": {"low"}}
    interfaces = {("left", "right"): ({"p.right.api"}, "why")}
    ok = {("left", "low"): {"p.low.a"}, ("right", "low"): {"p.low.a"}, ("left", "right"): {"p.right.api"}}
    assert layout_problems(ok, allowed, layers, interfaces) == []
    undeclared = {**ok, ("low", "left"): {"p.left.x"}}
    assert layout_problems(undeclared, {**allowed, "low": set()}, layers, interfaces) == [
        "low -> left is not in ALLOWED (p.left.x)",
        "low -> left imports a package above it without a declared interface (p.left.x)",
    ]
    stale = {k: v for k, v in ok.items() if k != ("right", "low")}
    assert layout_problems(stale, allowed, layers, interfaces) == ["right -> low is in ALLOWED but no code imports it"]
    sideways = {**ok, ("right", "left"): {"p.left.x"}}
    assert "right -> left imports a package beside it without a declared interface (p.left.x)" in \
        layout_problems(sideways, {**allowed, "right": {"low", "left"}}, layers, interfaces)
    past = {**ok, ("left", "right"): {"p.right.api", "p.right.inner"}}
    assert layout_problems(past, allowed, layers, interfaces) == [
        "left -> p.right.inner: outside the declared interface ['p.right.api']"
    ]
    unused = {**ok, ("left", "right"): {"p.right.other"}}
    assert layout_problems(unused, allowed, layers, interfaces) == [
        "left -> p.right.other: outside the declared interface ['p.right.api']",
        "left -> p.right.api: declared as an interface, no code imports it"]
    assert layout_problems(ok, allowed, layers, {("left", "right"): ({"p.right.api"}, " ")}) == [
        "left -> right: an interface without its reason"
    ]


def test_no_package_imports_another_packages_private_name():
    """A name with a leading underscore is its module's own: another package (or room) uses it through
    a public name."""
    private = []
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        package = room(".".join((PACKAGE, *path.relative_to(ROOT / PACKAGE).with_suffix("").parts)))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"{PACKAGE}."):
                if room(node.module) != package:
                    private += [
                        f"{path.relative_to(ROOT)}: {node.module}.{a.name}"
                        for a in node.names
                        if a.name.startswith("_")
                    ]
    assert not private, f"imports of another package's private names: {private}"


def test_only_the_documented_path_uses_the_current_turn():
    """docs/architecture.md: the model-backed player sets engine.player.current_turn around each call
    and the scripted provider reads it to learn its game; nothing else names it."""
    users = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / PACKAGE).rglob("*.py")
        if any(
            isinstance(node, (ast.Name, ast.alias))
            and getattr(node, "id", getattr(node, "name", None)) == "current_turn"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    )
    assert users == [
        f"{PACKAGE}/backends/scripted_provider.py",
        f"{PACKAGE}/engine/player.py",
        f"{PACKAGE}/players/model.py",
    ]
    assert "current_turn" in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


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


def test_the_run_core_is_not_pytest(graph):
    """run/ is what every front needs to plan and play cases (issue 63): pytest and xdist stay in
    pytest_plugin/, and the room's docstring says what it owns and may import."""
    for outside in ("pytest", "_pytest", "xdist", "pluggy"):
        if outside in graph.modules:
            chain = _chain(graph, f"{PACKAGE}.run", outside)
            assert chain is None, f"run/ reaches {outside}: {' -> '.join(chain)}"
    doc = ast.get_docstring(ast.parse((resources.files(PACKAGE) / "run" / "__init__.py").read_text(encoding="utf-8")))
    assert doc and "import" in doc, "run/__init__.py: say what the room owns and what it may import"


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
