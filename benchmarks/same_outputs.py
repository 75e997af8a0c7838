"""The same seed gives the same records, reports and fingerprints from two source trees (issue 62).

    git worktree add --detach /tmp/main-ab main
    python benchmarks/same_outputs.py /tmp/main-ab .          # prints JSON; exit 1 when anything differs

For each tree (put first on PYTHONPATH, so this venv runs that tree's code), in a fresh directory:
the pytest plugin with `gameeval/scripted` plays every game (--gameeval-limit 3, 2 trials, seed 7),
then again gated against that first report as its baseline (the gate items' path), then with two
xdist workers (their hand-over of cases and records to the controller); every game's
version and fingerprint is read. Both trees run in the same directory (a report names its
baseline's path). Then the two trees' outputs are compared: the records files byte
for byte, the reports byte for byte once their time fields are set aside (`created`,
`run.seconds`, each case's `seconds`), and the fingerprints. A speed change must leave all of
them as they were.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

GAMES = "askguess,akinator,taboo,bluffing,tofukingdom,spygpt,age,spyfall,spygame"
PLAY = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--gameeval-only",
        "--gameeval-model", "gameeval/scripted", "--gameeval-games", GAMES, "--gameeval-limit", "3",
        "--gameeval-trials", "2", "--gameeval-seed", "7"]
FINGERPRINTS = ("import json; from pytest_gameeval.games.registry import GAMES, get_spec; "
                "print(json.dumps({g: [get_spec(g).version, get_spec(g).fingerprint] for g in sorted(GAMES)}))")


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree.resolve()), "GAMEEVAL_PROGRESS_SECONDS": "0"}


def _run(tree: Path, cwd: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=_env(tree), capture_output=True, text=True,
                          timeout=900)
    if done.returncode not in (0, 1):  # 1: a gate may fail; the outputs are still compared
        raise SystemExit(f"{tree}: {' '.join(args)} exited {done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")


def outputs(tree: Path, work: Path) -> dict[str, Any]:
    """The tree's records (bytes), reports (time fields set aside) and fingerprints."""
    work.mkdir()
    _run(tree, work, *PLAY, "--gameeval-report", "first.json")
    _run(tree, work, *PLAY, "--gameeval-report", "gated.json", "--gameeval-baseline", "first.json")
    _run(tree, work, *PLAY, "--gameeval-report", "xdist.json", "-n", "2")  # the workers' hand-over
    code = subprocess.run([sys.executable, "-c", FINGERPRINTS], env=_env(tree), capture_output=True, text=True,
                          check=True, cwd=work)
    out: dict[str, Any] = {"fingerprints": json.loads(code.stdout)}
    for name in ("first", "gated", "xdist"):
        out[f"{name}.records"] = b"".join(p.read_bytes() for p in sorted(work.glob(f"{name}*records.jsonl")))
        out[f"{name}.report"] = without_times(json.loads((work / f"{name}.json").read_text()))
    return out


def without_times(report: dict[str, Any]) -> str:
    """The report as JSON with its time fields blanked (key order kept as written)."""
    report["created"] = None
    report["run"]["seconds"] = None
    for case in report["cases"]:
        case["seconds"] = None
    return json.dumps(report, indent=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="a source tree (e.g. a worktree of main)")
    parser.add_argument("after", type=Path, help="another source tree (e.g. this branch: .)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:  # the same directory for both: the report names its baseline's path
        before = outputs(args.before, Path(tmp) / "run")
        shutil.rmtree(Path(tmp) / "run")
        after = outputs(args.after, Path(tmp) / "run")
    result = {
        "before": str(args.before), "after": str(args.after), "games": GAMES.split(","),
        "same": {k: before[k] == after[k] for k in before},
        "sizes": {k: len(v) if isinstance(v, (bytes, str)) else len(v) for k, v in after.items()},
        "records_lines": {k: v.count(b"\n") for k, v in after.items() if k.endswith(".records")},
    }
    print(json.dumps(result, indent=1))
    sys.exit(0 if all(result["same"].values()) else 1)


if __name__ == "__main__":
    main()
