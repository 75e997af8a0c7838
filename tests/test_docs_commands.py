"""The docs are code: every shell block a user would copy from README.md and the docs it sends
users to (DOCS) runs here exactly as written, in a directory holding a copy of what a clone has at
its top (`tasks/`, `tests/`, `pyproject.toml`: the README speaks to a clone, so a pytest command
there collects the project's own suite unless told not to), with this environment's commands on PATH.

A block preceded by `<!-- doc-test: exit N; expect "TEXT"; ... -->` must end with exit status N and
print every TEXT (the README's gate example fails on purpose and says why).

Blocks run in order, one directory per file, so a block may use what an earlier one wrote. A
python block whose first line is `# NAME.py` is saved as NAME.py (the README's fixture example,
run by the README's own command line). Blocks that need the embedded model, an install or a server
are slow; the block running this very suite is left to CI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.games.registry import get_spec

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "docs/running-evaluations.md", "docs/pytest-plugin.md", "docs/your-data.md",
        "docs/embedded-model.md", "docs/local-models.md", "docs/compare.md", "docs/versions.md", "docs/shards.md",
        "docs/adding-a-game.md", "docs/live-apis.md", "docs/report-schema.md", "docs/fresh-cases.md",
        "docs/history.md"]
ALL_SLOW = ("docs/embedded-model.md", "docs/local-models.md")  # every block needs the embedded model or a server
CLONE_TOP = ("tasks", "tests", "benchmarks", "pyproject.toml")  # the fault server imports benchmarks/
SLOW_MARKS = ("gameeval/local", "localsmol", "serve-local", "pip install", "python -m venv", "inspect view")
THIS_SUITE = 'pytest -m "not slow"'
SERVERS = ("inspect view", "gameeval serve-local")
BLOCK = re.compile(r"^(?:<!-- doc-test: (?P<expect>.*?) -->\n)?```(?P<lang>\w+)\n(?P<body>.*?)^```", re.S | re.M)


def blocks(doc: str) -> list[tuple[str, str]]:
    return [(m["lang"], m["body"]) for m in BLOCK.finditer((ROOT / doc).read_text(encoding="utf-8"))]


def expectations(doc: str) -> dict[str, tuple[int, list[str]]]:
    """block body -> (exit status, texts the output must hold), from its doc-test comment."""
    out = {}
    for m in BLOCK.finditer((ROOT / doc).read_text(encoding="utf-8")):
        if m["expect"]:
            status = re.search(r"exit (\d+)", m["expect"])
            out[m["body"]] = (int(status[1]) if status else 0, re.findall(r'expect "([^"]+)"', m["expect"]))
    return out


def shell_blocks(doc: str) -> list[str]:
    return [body for lang, body in blocks(doc) if lang in ("bash", "sh", "shell")]


def env_for(workdir: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    own = workdir.parent / "venv" / "bin"  # a slow doc's own venv (own_venv): what its blocks install goes there
    path = f"{own}:{bin_dir}" if own.is_dir() else bin_dir
    return {**os.environ, "PATH": f"{path}:{os.environ.get('PATH', '')}", "PWD": str(workdir),
            "INSPECT_LOG_DIR": str(workdir / "logs"), "PYTHONDONTWRITEBYTECODE": "1"}


def own_venv(where: Path) -> Path:
    """A venv for one doc's slow blocks, so a block's `pip install -e ".[gemma]"` (from a clone that
    is deleted afterwards) never lands in the venv running this suite. It sees this venv's packages
    (its site folder added, .pth files and all, after its own), and this venv's commands are copied
    into it with their `#!` pointing at its python, so `inspect`, `gameeval` and `pytest` run in it."""
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    parent = sysconfig.get_paths()["purelib"]
    # named to sort after setuptools' __editable__ files: a package installed here is found first
    (Path(purelib) / "zz_running_suite.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
    for script in Path(sys.executable).parent.iterdir():
        target = where / "bin" / script.name
        if target.exists() or not script.is_file():
            continue
        head = script.read_bytes()[:200]
        if head.startswith(b"#!") and b"python" in head.split(b"\n", 1)[0]:
            body = script.read_text(encoding="utf-8").split("\n", 1)[1]
            target.write_text(f"#!{python}\n{body}", encoding="utf-8")
            target.chmod(0o755)
    return where


def commands(block: str) -> list[str]:
    """The block's commands: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def run_block(block: str, workdir: Path, timeout: float, expect: tuple[int, list[str]] = (0, [])) -> None:
    """Run a block as one bash script (set -e); a server command starts in the background, is
    waited for until it prints its address, and is stopped after the block's other commands."""
    servers = [c for c in commands(block) if c.lstrip().startswith(SERVERS)]
    script = block
    started: list[subprocess.Popen] = []
    try:
        for command in servers:
            script = script.replace(command.split("#")[0].rstrip(), ":", 1)
            proc = subprocess.Popen(["bash", "-c", command], cwd=workdir, env=env_for(workdir), text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
            started.append(proc)
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                line = proc.stdout.readline() if proc.stdout else ""
                if "http://" in line:
                    break
                if not line and proc.poll() is not None:
                    pytest.fail(f"server command exited: {command}")
            else:
                pytest.fail(f"server command printed no address: {command}")
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=workdir, env=env_for(workdir),
                                capture_output=True, text=True, timeout=timeout)
        status, texts = expect
        assert result.returncode == status, (
            f"block ended {result.returncode}, not {status}:\n{block}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
        missing = [t for t in texts if t not in result.stdout + result.stderr]
        assert not missing, f"block did not print {missing}:\n{block}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    finally:
        for proc in started:
            os.killpg(proc.pid, 15)
            proc.wait(timeout=30)


def play_doc(doc: str, tmp_path: Path, slow: bool) -> int:
    """Run the doc's blocks in order; returns how many ran."""
    workdir = tmp_path / "user"
    if slow:  # the README's install block says "from a clone of this repository": run them in one
        subprocess.run(["git", "clone", "-q", str(ROOT), str(workdir)], check=True, timeout=120)
        own_venv(tmp_path / "venv")
    else:
        workdir.mkdir()
        for name in CLONE_TOP:
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, workdir / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(ROOT / name, workdir / name)
    expected = expectations(doc)
    ran = 0
    for lang, body in blocks(doc):
        first = body.splitlines()[0] if body.strip() else ""
        if lang == "python" and re.fullmatch(r"# [\w.-]+\.py", first.strip()):
            (workdir / first[2:].strip()).write_text(body, encoding="utf-8")
            continue
        if lang not in ("bash", "sh", "shell") or THIS_SUITE in body:
            continue
        if any(mark in body for mark in SLOW_MARKS) != slow:
            continue
        run_block(body, workdir, timeout=3600 if slow else 600, expect=expected.get(body, (0, [])))
        ran += 1
    return ran


# quick blocks of these take over 30 s on 2 cores together: .ci/run's slow stage runs them, not the README's command
HEAVY_QUICK = ("docs/shards.md", "docs/compare.md", "docs/running-evaluations.md", "docs/your-data.md",
               "docs/fresh-cases.md", "docs/history.md")


@pytest.mark.parametrize("doc", [pytest.param(d, marks=pytest.mark.slow) if d in HEAVY_QUICK else d
                                 for d in DOCS if d not in ALL_SLOW])
def test_every_quick_block_runs_as_written(doc, tmp_path):
    assert play_doc(doc, tmp_path, slow=False) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS)
def test_every_slow_block_runs_as_written(doc, tmp_path):
    play_doc(doc, tmp_path, slow=True)


def test_the_fixture_example_and_its_command_are_in_the_plugin_docs():
    """The fixture example must stay runnable by the docs' own command (not skipped, not dropped)."""
    doc = "docs/pytest-plugin.md"
    saved = [b for lang, b in blocks(doc) if lang == "python" and b.startswith("# test_answerer.py")]
    assert saved, f"{doc} lost its '# test_answerer.py' fixture example"
    assert any("pytest test_answerer.py" in b and "--gameeval-model" in b for b in shell_blocks(doc))


def test_the_readme_gate_example_plays_only_the_game_cases_and_catches_a_regression():
    """In a clone, the gate example must not run the project's suite (--gameeval-only), and it must
    end in a verdict that teaches something: a regression caught, exit 1."""
    gate = [(body, want) for body, want in expectations("README.md").items() if "--gameeval-baseline" in body]
    assert gate, "README.md's gate example lost its doc-test expectation"
    body, (status, texts) = gate[0]
    assert all("--gameeval-only" in c for c in commands(body) if c.startswith("pytest"))
    assert status == 1 and any("FAILED" in t for t in texts)


def test_every_row_format_in_the_data_docs_loads(tmp_path):
    """Each example row in docs/your-data.md's table is accepted by its game (akinator's needs the
    full attribute table, so it is built from the shipped file)."""
    table = [line for line in (ROOT / "docs/your-data.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("| ") and "`{" in line]
    checked = []
    for line in table:
        game, example = re.match(r"\| (\w+) \| `(\{.*?\})` \|", line).groups()
        spec = get_spec(game)
        if "{...}" in example:
            attributes = json.loads((Path(spec.data_path({})).parent / "attributes.json").read_text())
            example = example.replace("{...}", json.dumps({k: False for k in attributes}))
        path = tmp_path / f"{game}.jsonl"
        path.write_text(json.dumps(json.loads(example)) + "\n", encoding="utf-8")
        options = spec.parse_options({"data": str(path)})
        assert len(spec.rows(options)) >= 1, game
        checked.append(game)
    assert sorted(checked) == sorted(
        n for n in ("askguess", "spyfall", "spygame", "spygpt", "age", "akinator", "taboo", "bluffing")
    )


def test_a_malformed_user_file_names_its_line(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "a-b", "spy": "a", "villager": "b"}\n{"id": "c-d", "spy": "c"}\n', encoding="utf-8")
    spec = get_spec("spyfall")
    with pytest.raises(GameEvalError, match=rf"^{re.escape(str(path))}:2: missing key 'villager'$"):
        spec.rows(spec.parse_options({"data": str(path)}))


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_the_shards_workflow_runs_locally(tmp_path):
    """docs/shards.md's GitHub Actions workflow, step by step: every `run:` step of the matrix job
    once per slice, each in its own checkout, the artifacts copied where the upload and download
    steps put them, then every `run:` step of the gate job. Skipped: `uses:` steps (checkout,
    Python, artifacts: emulated here) and `pip install` (this environment has the package)."""
    import yaml

    doc = "docs/shards.md"
    (workflow,) = [b for lang, b in blocks(doc) if lang == "yaml" and b.startswith("# .github/workflows/")]
    spec = yaml.safe_load(workflow)
    env = {**env_for(tmp_path), **{k: str(v) for k, v in spec["env"].items()}}
    gate_dir = tmp_path / "gate"
    gate_dir.mkdir()
    for name in CLONE_TOP:  # the checkout, with the baseline the repository commits (made by the doc's first block)
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, gate_dir / name)
    run_block(shell_blocks(doc)[0], gate_dir, timeout=600)

    def run_steps(job: dict, workdir: Path, matrix: dict[str, str]) -> list[str]:
        ran = []
        for step in job["steps"]:
            if "run" not in step or step["run"].startswith("pip install"):
                assert "uses" in step or step["run"].startswith("pip install"), step
                continue
            command = re.sub(r"\$\{\{ matrix\.(\w+) \}\}", lambda m: matrix[m[1]], step["run"])
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", command],
                cwd=workdir,
                env={**env, "PWD": str(workdir)},
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            ran.append(done.stdout)
        return ran

    slice_job, gate_job = spec["jobs"]["slice"], spec["jobs"]["gate"]
    upload = next(s for s in slice_job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact"))[
        "with"
    ]["path"]
    download = next(s for s in gate_job["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact"))[
        "with"
    ]
    assert download["merge-multiple"] is True
    for value in slice_job["strategy"]["matrix"]["slice"]:
        workdir = tmp_path / f"slice-{value}"
        workdir.mkdir()
        run_steps(slice_job, workdir, {"slice": str(value)})
        for file in (workdir / upload).iterdir():  # upload-artifact, then download-artifact with merge-multiple
            (gate_dir / download["path"]).mkdir(exist_ok=True)
            shutil.copy(file, gate_dir / download["path"] / file.name)
    merged, diff = run_steps(gate_job, gate_dir, {})
    assert "merged 3 slices into reports/merged.json" in merged and "no game worse beyond its tolerance" in diff


def test_the_performance_pages_shell_blocks_print_its_tables_from_the_committed_results():
    """docs/performance.md's shell blocks read benchmarks/results/ and print tables (they run no
    benchmark: those commands are in plain blocks, minutes each on an idle machine). Run as written
    from the repository root; every table row they print must be on the page, so the page says
    what the committed results say."""
    doc = "docs/performance.md"
    page = (ROOT / doc).read_text(encoding="utf-8")
    ran = 0
    for block in shell_blocks(doc):
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=ROOT, env=env_for(ROOT),
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, f"{block}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        rows = [line for line in result.stdout.splitlines() if line.startswith("|")]
        assert rows, f"{block}: printed no table"
        missing = [row for row in rows if row not in page]
        assert not missing, f"{doc} lacks rows its command prints:\n" + "\n".join(missing[:5])
        ran += 1
    assert ran >= 1
