"""AGE through inspect: the task with seats bound by a list role, list-role resolution, and the
per-model x per-topic command. Scripted models only (offline, deterministic)."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import get_model
from inspect_ai.model._model import _model_roles

from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.spec import EVALUATED
from pytest_gameeval.games.age import SPEC
from pytest_gameeval.games.age.topics import topic_table, write_outputs
from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.inspect_ext.solver import bound_model, resolve_role
from pytest_gameeval.inspect_ext.task import game_task
from pytest_gameeval.players.scripted import scripted_binder

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
PAIRS = [
    {"id": "p1", "topic": "Food", "word_a": "butter", "word_b": "margarine", "synonyms_a": [], "synonyms_b": ["marge"]},
    {"id": "p2", "topic": "Food", "word_a": "coffee", "word_b": "tea", "synonyms_a": ["espresso"], "synonyms_b": []},
]


@pytest.fixture
def datasets(tmp_path):
    (tmp_path / "age").mkdir()
    for name in ("list_a", "food", "travel"):
        (tmp_path / "age" / f"{name}.jsonl").write_text(
            "".join(json.dumps({**p, "id": f"{name}-{p['id']}"}) + "\n" for p in PAIRS)
        )
    return tmp_path


def run(args, datasets, tmp_path):
    env = {**os.environ, "GAMEEVAL_DATASETS": str(datasets)}
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_four_seats_bound_by_a_list_role(datasets, tmp_path):
    log_dir = tmp_path / "logs"
    proc = run([str(BIN / "inspect"), "eval", "tasks/age.py", "--model", "gameeval/scripted",
                "--model-role", "players=gameeval/scripted/oracle,gameeval/scripted/random",
                "--model-role", "seat4=gameeval/scripted/oracle",
                "--limit", "2", "--log-dir", str(log_dir), "--display", "plain"], datasets, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (log,) = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    assert log.status == "success" and len(log.samples) == 2
    for sample in log.samples:
        record = sample.metadata["gameeval_record"]
        by_slot = {s["private"]["slot"]: s["model"] for s in record["seats"]}
        assert by_slot == {
            1: "gameeval/scripted",
            2: "gameeval/scripted/oracle",
            3: "gameeval/scripted/random",
            4: "gameeval/scripted/oracle",
        }
        score = sample.scores["gameeval_age"]
        assert score.answer in {"solved", "limit", "CE"}
        assert 0.0 <= score.value["age"] <= 1.0 and 0.0 <= score.value["comprehension"] <= 1.0
        assert record["notes"] == []  # every seat bound


def test_unknown_list_is_one_clear_error(datasets, monkeypatch):
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(datasets))
    with pytest.raises(PrerequisiteError, match="unknown list 'nope'"):
        game_task("age", lists="nope")
    assert len(game_task("age", lists="food,travel").dataset) == 4


def test_topic_table_and_outputs_without_inspect(datasets, monkeypatch, tmp_path):
    monkeypatch.setenv("GAMEEVAL_DATASETS", str(datasets))
    opts = SPEC.parse_options({"lists": "food,travel", "max_rounds": 3})
    records = []
    for evaluated in ("oracle", "random"):
        bind = scripted_binder(SPEC, {EVALUATED: evaluated, "*": "random"})
        records += [asyncio.run(play_case(SPEC, r, 0, opts, bind)) for r in SPEC.select_rows(opts)]
    result = topic_table(records)
    assert result["models"] == ["scripted/oracle", "scripted/random"] and result["topics"] == ["food", "travel"]
    assert all(c["n"] == 2 for m in result["models"] for c in result["table"][m].values())
    json_path, png_path = write_outputs(result, tmp_path / "out")
    assert json.loads(json_path.read_text())["macro"]["scripted/oracle"]["n"] == 2
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "age_topics.json",
        "age_topics.png",
    ]  # no temp files left


def test_list_roles_resolve_by_index():
    a, b, c = (get_model("mockllm/model", memoize=False) for _ in range(3))
    token = _model_roles.set({"players": [a, b], "seat4": c, "judge": a})
    try:
        assert bound_model("players[0]") is a and bound_model("players[1]") is b
        assert bound_model("players[2]") is None
        assert bound_model("seat4|players[2]") is c  # the per-seat role wins
        assert bound_model("seat2|players[0]") is a  # falls back to the list
        assert bound_model("judge") is not None and bound_model("other") is None
        notes = []
        age = get_spec("age")
        assert resolve_role("seat3|players[5]", b, notes, age, age.parse_options({})) is b and "not bound" in notes[0]
    finally:
        _model_roles.reset(token)


@pytest.mark.slow  # two inspect runs over 8 games: ~30 s on a loaded 2-core machine
def test_age_topics_command_writes_json_and_png(datasets, tmp_path):
    out = tmp_path / "out"
    proc = run([str(BIN / "gameeval"), "age-topics", "--models", "gameeval/scripted/oracle,gameeval/scripted/random",
                "--adversary", "gameeval/scripted/random", "--lists", "food,travel", "--limit", "2",
                "--max-rounds", "3", "--log-dir", str(tmp_path / "logs"), "--out", str(out)], datasets, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((out / "age_topics.json").read_text())
    assert result["models"] == ["gameeval/scripted/oracle", "gameeval/scripted/random"]
    assert result["topics"] == ["food", "travel"]
    assert result["games"] == 8
    oracle = result["table"]["gameeval/scripted/oracle"]
    assert all(cell["n"] == 2 for cell in oracle.values())
    assert result["macro"]["gameeval/scripted/oracle"]["n"] == 2
    assert (out / "age_topics.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # rebuilding from the logs gives the same table
    again = tmp_path / "again"
    proc = run(
        [str(BIN / "gameeval"), "age-topics", "--from-logs", str(tmp_path / "logs"), "--out", str(again)],
        datasets,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads((again / "age_topics.json").read_text())["table"] == result["table"]


def test_age_topics_bad_input_writes_nothing(tmp_path, datasets):
    proc = run([str(BIN / "gameeval"), "age-topics", "--models", "x", "--adversary", "y", "--lists", "nope",
                "--out", str(tmp_path / "out")], datasets, tmp_path)
    assert proc.returncode == 2 and "unknown list 'nope'" in proc.stderr
    assert not (tmp_path / "out").exists()
