"""Ask-Guess through the real inspect CLI, with the scripted provider behind inspect's model path."""

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import list_eval_logs, read_eval_log

from pytest_gameeval.games.registry import get_spec
from pytest_gameeval.inspect_ext.task import game_task

ROOT = Path(__file__).resolve().parents[3]
INSPECT = str(Path(sys.executable).with_name("inspect"))


def inspect_eval(tmp_path, *args):
    log_dir = tmp_path / "logs"
    proc = subprocess.run(
        [INSPECT, "eval", *args, "--log-dir", str(log_dir), "--display", "plain"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    logs = list_eval_logs(str(log_dir))
    return proc, [read_eval_log(log, resolve_attachments=True) for log in logs]


def test_inspect_eval_plays_and_scores(tmp_path):
    proc, logs = inspect_eval(
        tmp_path,
        "tasks/askguess.py",
        "--model",
        "gameeval/scripted",
        "--model-role",
        "answerer=gameeval/scripted/oracle",
        "--limit",
        "3",
        "-T",
        "max_rounds=10",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (log,) = logs
    assert log.status == "success"
    assert len(log.samples) == 3
    version = get_spec("askguess").version  # the game's version names what the log measured (issue 36)
    assert log.eval.task_version == version == log.eval.metadata["gameeval_version"]
    assert log.eval.metadata["gameeval_fingerprint"] == get_spec("askguess").fingerprint
    assert all(s.metadata["gameeval_record"]["game_version"] == version for s in log.samples)
    for sample in log.samples:
        score = sample.scores["gameeval_askguess"]
        assert score.answer in {"ST", "EE", "RLE", "AME", "CE"}
        assert sum(score.value[k] for k in ("ST", "EE", "RLE", "AME", "CE")) == 1.0
        record = sample.metadata["gameeval_record"]
        assert record["outcome"]["label"] == score.answer
        assert record["seats"][1]["model"] == "gameeval/scripted/oracle"
        spans = [e.name for e in sample.events if e.event == "span_begin"]
        assert "Round 1" in spans and not any(s.startswith("Questioner (questioner)") for s in spans)
        assert "Questioner: ask" in spans and "Answerer: answer" in spans  # seat and the turn's action
        sources = [e.source for e in sample.events if e.event == "info"]
        assert "Questioner says" in sources and sources[-1] == "Outcome"
    metrics = log.results.scores[0].metrics
    assert {"mean", "stderr"} <= set(metrics) or any(s.name == "ST" for s in log.results.scores)


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_registered_name_and_unbound_answerer_is_the_reference_said_in_the_log(tmp_path):
    proc, logs = inspect_eval(
        tmp_path, "gameeval/askguess", "--model", "gameeval/scripted", "--limit", "1", "-T", "max_rounds=3"
    )
    (log,) = logs
    assert log.status == "success"
    sample = log.samples[0]
    infos = [str(e.data) for e in sample.events if e.event == "info"]
    assert any(
        "model role 'answerer' is not bound" in i and "reference policy gameeval/scripted/reference" in i for i in infos
    )
    card = next(i for i in infos if "Answerer" in i)  # the setup card names who played the seat
    assert "gameeval/scripted/reference" in card
    record = sample.metadata["gameeval_record"]
    answerer = next(s for s in record["seats"] if s["role"] == "answerer")
    assert (
        answerer["model"] == "gameeval/scripted/reference"
        and answerer["reference"]
        and answerer["model_role"] == "answerer"
    )
    assert any("reference policy" in n for n in record["notes"])


@pytest.mark.slow  # over 20 s on 2 cores: .ci/run's slow stage runs it
def test_opponents_self_is_self_play_said_in_the_log(tmp_path):
    proc, logs = inspect_eval(
        tmp_path,
        "gameeval/askguess",
        "--model",
        "gameeval/scripted",
        "--limit",
        "1",
        "-T",
        "max_rounds=3",
        "-T",
        "opponents=self",
    )
    (log,) = logs
    record = log.samples[0].metadata["gameeval_record"]
    assert {s["model"] for s in record["seats"]} == {"gameeval/scripted"}
    assert any(
        "played by the evaluated model gameeval/scripted (self-play: opponents=self)" in n for n in record["notes"]
    )


def test_unknown_task_argument_is_one_clear_error(tmp_path):
    proc, logs = inspect_eval(tmp_path, "tasks/askguess.py", "--model", "gameeval/scripted", "-T", "bogus=1")
    assert proc.returncode != 0
    assert "unknown task argument(s) bogus for askguess" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not logs


@pytest.mark.parametrize(
    ("args", "message"),
    [({"mode": "medium"}, "mode='medium': choose from easy, hard"), ({"max_rounds": "many"}, "must be of type int"),
     ({"words": "apple,unicorn"}, "unknown word(s) unicorn")],
)
def test_bad_task_arguments_are_one_clear_error(args, message):
    with pytest.raises(PrerequisiteError) as error:
        game_task("askguess", **args)
    assert message in str(error.value.message) and "\n" not in str(error.value.message)


def test_a_scripted_strength_the_game_lacks_is_one_clear_error(tmp_path):
    proc, logs = inspect_eval(tmp_path, "tasks/spyfall.py", "--model", "gameeval/scripted/oracle", "--limit", "1")
    assert proc.returncode != 0
    said = " ".join((proc.stdout + proc.stderr).split())  # inspect wraps the line to the terminal's width
    assert "spyfall has no scripted strength 'oracle'; its strengths: first_option, random, strong" in said
    assert "Traceback" not in said
    assert not logs
