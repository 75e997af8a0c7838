"""protocol=paper: every game accepts it, through both front ends (docs/fidelity.md)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from pytest_gameeval.analysis.report.file import read_report
from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.options import coerce
from pytest_gameeval.engine.record import GameRecord
from pytest_gameeval.games.askguess import metrics as askguess_metrics
from pytest_gameeval.games.registry import GAMES, get_spec
from pytest_gameeval.inspect_ext.task import game_task
from pytest_gameeval.run.settings import Settings

pytest_plugins = ["pytester"]


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_accepts_the_paper_protocol(game):
    spec = get_spec(game)
    options = spec.parse_options({"protocol": "paper"})
    assert options.protocol == "paper"
    known = spec.all_options()
    for name, value in spec.paper_protocol.items():
        assert name in known, f"{game}: protocol=paper sets unknown option {name}"
        assert coerce(name, value, known[name]) == value and getattr(options, name) == value
    task = game_task(game, protocol="paper")
    assert task.metadata["gameeval_options"]["protocol"] == "paper" and len(task.dataset) > 0


@pytest.mark.parametrize("game", [g for g in GAMES if get_spec(g).paper_protocol])
def test_an_option_given_explicitly_beats_the_paper_protocol(game):
    spec = get_spec(game)
    name, paper_value = next(iter(spec.paper_protocol.items()))
    default = spec.all_options()[name].default
    assert getattr(spec.parse_options({"protocol": "paper", name: default}), name) == default
    assert getattr(spec.parse_options({}), name) == default  # and the default protocol leaves it alone
    if default != paper_value:
        assert getattr(spec.parse_options({"protocol": "paper"}), name) == paper_value


def test_an_unknown_protocol_is_one_clear_error():
    with pytest.raises(GameEvalError, match="protocol='papr': choose from default, paper"):
        get_spec("askguess").parse_options({"protocol": "papr"})


def test_the_plugin_flag_is_the_protocol_option():
    spec = get_spec("taboo")
    assert Settings(option_overrides=[("protocol", "paper")]).game_options(spec).protocol == "paper"
    # --gameeval-protocol comes first, so an explicit --gameeval-option still wins
    assert (
        Settings(option_overrides=[("protocol", "paper"), ("taboo.protocol", "default")]).game_options(spec).protocol
        == "default"
    )


def test_gameeval_protocol_paper_runs_and_is_reported(pytester):
    import pytest_gameeval.run.runner  # noqa: F401  (imported once, not per in-process run)

    result = pytester.runpytest_inprocess(
        "--gameeval-games",
        "askguess",
        "--gameeval-model",
        "gameeval/scripted/oracle",
        "--gameeval-role",
        "answerer=gameeval/scripted/oracle",
        "--gameeval-limit",
        "1",
        "--gameeval-protocol",
        "paper",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=1)
    assert (
        read_report(pytester.path / "reports" / "gameeval-report.json")["games"]["askguess"]["options"]["protocol"]
        == "paper"
    )
    bad = pytester.runpytest_inprocess("--gameeval-games", "askguess", "--gameeval-model", "gameeval/scripted/oracle",
                                       "--gameeval-protocol", "papr", "-p", "no:cacheprovider")
    assert bad.ret != 0
    bad.stderr.fnmatch_lines(["*protocol='papr': choose from default, paper*"])


def _askguess(word: str, label: str, rounds: int, mode: str = "hard") -> GameRecord:
    return GameRecord(
        game="askguess",
        instance_id=word,
        seed=0,
        epoch=0,
        options={"mode": mode, "max_rounds": 30},
        seats=[],
        events=[],
        failures={},
        usage={},
        outcome={"label": label, "winner": None, "details": {"rounds": rounds, "word": word, "missed_guesses": 0}},
    )


def test_askguess_round_as_gameeval_published_it_hand_worked():
    """Per word: mean of its ST games, one question fewer in hard mode; 30 for a word never solved."""
    records = [_askguess("apple", "ST", 4), _askguess("apple", "ST", 6), _askguess("apple", "RLE", 30),
               _askguess("bear", "RLE", 30), _askguess("bear", "EE", 7),
               _askguess("cat", "ST", 11), _askguess("cat", "CE", 2)]
    summary = askguess_metrics.summarize(records)
    # apple (3 + 5) / 2 = 4; bear 30; cat 10 -> (4 + 30 + 10) / 3
    assert summary["round_paper"]["value"] == pytest.approx(44 / 3) and summary["round_paper"]["n"] == 3
    assert summary["mean_rounds_st"]["value"] == pytest.approx(7.0)  # ours: (4 + 6 + 11) / 3 ST games
    easy = [_askguess("apple", "ST", 4, mode="easy")]
    assert askguess_metrics.summarize(easy)["round_paper"]["value"] == 4.0  # easy mode counts every question


FIDELITY = Path(__file__).resolve().parents[2] / "docs" / "fidelity.md"
BIN = Path(sys.executable).parent


def doc_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", FIDELITY.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("command", doc_commands())
def test_fidelity_doc_commands_run_as_written(command, tmp_path):
    argv = shlex.split(command)
    argv[0] = str(BIN / argv[0]) if (BIN / argv[0]).exists() else argv[0]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    if argv[1:2] == ["eval"]:
        (log,) = (tmp_path / "logs").glob("*.eval")
        result = read_eval_log(str(log))
        assert result.status == "success" and result.eval.task_args.get("protocol") == "paper"
        assert result.eval.metadata["gameeval_options"]["protocol"] == "paper"
    else:
        report = read_report(tmp_path / "reports" / "gameeval-report.json")
        assert {g["options"]["protocol"] for g in report["games"].values()} == {"paper"}
