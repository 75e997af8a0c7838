"""Issue 63: move the run's core out of pytest_plugin/ into run/, changing no behaviour.

    python scripts/move_run_core.py          # on a tree from before the move (main at dbaea52)

What moves (pytest_plugin/ keeps only what talks to pytest):
- whole modules: settings, journal, budget, provider_stop, report_lock, exit_codes -> run/
- runner.py is split: its cases, plans and gated metrics (Case .. score_keys) -> run/plan.py; its
  models and play (ModelPool .. Runner) -> run/runner.py

Every import and every mention of the old paths (code, tests, docs, benchmarks) is rewritten to the
new one; for runner.py, name by name, to the module that now defines it. No re-export is left at the
old paths. It refuses to run twice (the old files must be there); `git checkout .` undoes it.
Written by hand in the same commit, as decisions rather than renames: run/'s row in
tests/test_layout.py, the two fronts' __init__ docstrings, and docs/architecture.md's and
docs/pytest-plugin.md's words on the new room.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "pytest_gameeval"
OLD, NEW = "pytest_plugin", "run"
WHOLE = ("settings", "journal", "budget", "provider_stop", "report_lock", "exit_codes")
# what runner.py defined that plan.py now defines (everything else stays in run/runner.py)
PLAN_NAMES = {"Case", "GamePlan", "slice_plans", "plan_game", "expected_decoding", "selected_specs",
              "gate_metrics", "_directions", "directions_of", "score_keys"}
PLAN_START = "# -- cases and shards"
PLAN_END = "# -- models"

ROOM_DOC = '''"""The run's core, under every front that plays cases (issue 63): what a front needs to plan and
play a set of cases and keep them safe, with no front in sight.

- `settings.py`: a run's settings and the shard layout (cheap to import);
- `plan.py`: the cases of each game, their plans and slices, the metrics a gate judges;
- `runner.py`: models by string, cases played many at once, the gated play in looks, resume;
- `journal.py`: each finished game appended as it ends, and read back to resume;
- `budget.py`: the run's spend and budget, one SQLite ledger every process shares;
- `provider_stop.py`: a provider that cannot answer stops the run;
- `report_lock.py`: one run at a time writes a report;
- `exit_codes.py`: the exit codes beside pytest's own.

No module here imports pytest (or xdist): the pytest plugin (pytest_plugin/) and the `gameeval` CLI
(cli/) both import this room, never each other. May import engine/, transport/, games/, fresh/,
inspect_ext/ and analysis/; never a front (pytest_plugin/, cli/, arena/).
"""
'''

PLAN_HEADER = '''"""A run's plan: the cases of each game (one per dataset row and trial), sliced over processes,
and the metrics the regression gate judges for each game. No model is touched here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_gameeval.analysis.report.file import dataset_digest
from pytest_gameeval.analysis.verdicts.gate import MEAN, RATE, GateMetric
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.options import GameOptions
from pytest_gameeval.engine.replies import decoding_label
from pytest_gameeval.engine.spec import GameSpec, Row
from pytest_gameeval.engine.user_data import check_no_blank_words
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.inspect_ext.decoding import resolve_structured
from pytest_gameeval.run.settings import NODE_PREFIX, Settings


'''

RUNNER_DOC = '''"""Playing game cases many at once, without pytest in sight (the plugin's items ask for them).
'''

RUNNER_IMPORTS_OLD = """from pytest_gameeval.analysis.report.file import cases_of, dataset_digest
from pytest_gameeval.analysis.verdicts.gate import MEAN, RATE, GameGate, GateMetric
"""
RUNNER_IMPORTS_NEW = """from pytest_gameeval.analysis.report.file import cases_of
from pytest_gameeval.analysis.verdicts.gate import GameGate, GateMetric
"""
RUNNER_DROP = (  # imports only the plan used
    "from pytest_gameeval.engine.options import GameOptions\n",
    "from pytest_gameeval.engine.replies import decoding_label\n",
    "from pytest_gameeval.engine.user_data import check_no_blank_words\n",
)
RUNNER_REPLACE = {
    "from pytest_gameeval.engine.spec import EVALUATED, GameSpec, Row\n":
        "from pytest_gameeval.engine.spec import EVALUATED\n",
    "from pytest_gameeval.games.registry import GAMES, REFERENCE_MODEL, get_spec\n":
        "from pytest_gameeval.games.registry import REFERENCE_MODEL, get_spec\n",
    "from pytest_gameeval.inspect_ext.decoding import model_player, resolve_structured\n":
        "from pytest_gameeval.inspect_ext.decoding import model_player\n",
    "from pytest_gameeval.pytest_plugin.settings import NODE_PREFIX, Settings\n":
        "from pytest_gameeval.run.plan import Case\nfrom pytest_gameeval.run.settings import Settings\n",
}


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def split_runner() -> None:
    old = PKG / OLD / "runner.py"
    text = old.read_text()
    start, end = text.index(PLAN_START), text.index(PLAN_END)
    plan_body = text[start:end]
    runner = text[:start] + text[end:]
    # the docstring's first line names the new home; the rest of it stays
    first_line_end = runner.index("\n") + 1
    runner = RUNNER_DOC + runner[first_line_end:]
    runner = runner.replace(RUNNER_IMPORTS_OLD, RUNNER_IMPORTS_NEW)
    for line in RUNNER_DROP:
        runner = runner.replace(line, "")
    for a, b in RUNNER_REPLACE.items():
        assert a in runner, a
        runner = runner.replace(a, b)
    git("mv", str(old), str(PKG / NEW / "runner.py"))
    (PKG / NEW / "runner.py").write_text(runner)
    (PKG / NEW / "plan.py").write_text(PLAN_HEADER + plan_body.rstrip() + "\n")
    git("add", str(PKG / NEW / "plan.py"))


def _runner_import(match: re.Match[str]) -> str:
    """`from ...pytest_plugin.runner import a, b` -> one line per module that now defines them."""
    indent, names, rest = match.group(1), [n.strip() for n in match.group(2).split(",")], match.group(3)
    plan = [n for n in names if n.split(" as ")[0] in PLAN_NAMES]
    runner = [n for n in names if n.split(" as ")[0] not in PLAN_NAMES]
    lines = []
    if plan:
        lines.append(f"{indent}from pytest_gameeval.run.plan import {', '.join(plan)}")
    if runner:
        lines.append(f"{indent}from pytest_gameeval.run.runner import {', '.join(runner)}")
    lines[-1] += rest
    return "\n".join(lines)


def rewrite(path: Path) -> bool:
    text = original = path.read_text()
    text = re.sub(r"^( *)from pytest_gameeval\.pytest_plugin\.runner import ([^(\n#]+?)( *(?:#.*)?)$",
                  _runner_import, text, flags=re.M)
    moved = "|".join((*WHOLE, "runner"))
    text = re.sub(rf"from pytest_gameeval\.pytest_plugin import ({moved})\b",
                  r"from pytest_gameeval.run import \1", text)
    text = text.replace("pytest_gameeval.pytest_plugin.runner.plan_game", "pytest_gameeval.run.plan.plan_game")
    text = text.replace("pytest_plugin.runner.plan_game", "run.plan.plan_game")
    text = text.replace("pytest_gameeval.pytest_plugin.runner", "pytest_gameeval.run.runner")
    for name in WHOLE:
        text = text.replace(f"pytest_gameeval.pytest_plugin.{name}", f"pytest_gameeval.run.{name}")
        text = text.replace(f"pytest_plugin/{name}.py", f"run/{name}.py")
    text = text.replace("pytest_plugin/runner.py", "run/runner.py")
    if text != original:
        path.write_text(text)
        return True
    return False


def main() -> int:
    if not (PKG / OLD / "runner.py").exists() or (PKG / NEW).exists():
        print("move_run_core: already moved (run/ exists or pytest_plugin/runner.py is gone)", file=sys.stderr)
        return 1
    (PKG / NEW).mkdir()
    (PKG / NEW / "__init__.py").write_text(ROOM_DOC)
    git("add", str(PKG / NEW / "__init__.py"))
    for name in WHOLE:
        git("mv", str(PKG / OLD / f"{name}.py"), str(PKG / NEW / f"{name}.py"))
    split_runner()
    tracked = subprocess.run(["git", "ls-files", "*.py", "*.md", ".ci/*"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.split()
    changed = [p for p in tracked if p != "scripts/move_run_core.py" and rewrite(ROOT / p)]
    py = [p for p in changed if p.endswith(".py")]
    py += [f"pytest_gameeval/{NEW}/plan.py", f"pytest_gameeval/{NEW}/runner.py"]
    # the moved imports sorted again where their new name sorts elsewhere (ruff's isort, the project's config)
    subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", "--fix", "--select", "I001", *py],
                   cwd=ROOT, check=True)
    print(f"moved {len(WHOLE) + 1} modules into {NEW}/, rewrote {len(changed)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
