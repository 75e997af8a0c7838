"""Plots a reader can read without the JSON beside them, written with the usual file mode.

matplotlib draws the figures here and the tests read back what it drew (axis titles, cell texts),
so they check the figure, not our arguments to it."""

import asyncio
import json
import os
import stat

import pytest

from pytest_gameeval.analysis.rankings import tournament as T
from pytest_gameeval.cli import bias_report
from pytest_gameeval.engine.play import play_case
from pytest_gameeval.engine.record import write_records
from pytest_gameeval.engine.safe_io import atomic_write, usual_mode
from pytest_gameeval.games.age import topics as age_topics
from pytest_gameeval.games.spygame import SPEC as SPYGAME
from pytest_gameeval.games.spygame import bias_plot
from pytest_gameeval.games.tofukingdom import tournament as tofukingdom_tournament
from pytest_gameeval.players.scripted import scripted_binder


@pytest.fixture
def captured(monkeypatch):
    """The figures saved during a test, still open for inspection."""
    import pytest_gameeval.engine.safe_io as files

    figures = []
    real = files.atomic_write

    def keep(fig, path, dpi=110):
        figures.append(fig)
        return real(path, lambda tmp: fig.savefig(tmp, format="png", dpi=dpi))

    monkeypatch.setattr(files, "save_figure", keep)
    monkeypatch.setattr(T, "save_figure", keep)
    monkeypatch.setattr(age_topics, "save_figure", keep)
    monkeypatch.setattr(bias_plot, "save_figure", keep)
    return figures


def texts(fig) -> list[str]:
    out = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts)]
    return out


def tournament_result():
    models = ["m/a", "m/b"]
    cell = {
        "value": [[None, 0.5], [0.25, None]],
        "ci": [[None, [0.1, 0.9]], [[0.05, 0.7], None]],
        "n": [[0, 4], [4, 0]],
    }
    return {
        "game": "spyfall",
        "games": 8,
        "models": models,
        "matrices": {
            "spy_win_rate": {
                "rows": models,
                "cols": models,
                "rows_title": "spy played by",
                "cols_title": "villagers played by",
                **cell,
            }
        },
        "bradley_terry": {
            "ranking": models,
            "ratings": {m: {"rating": r, "ci": [r - 1, r + 1]} for m, r in zip(models, (0.3, -0.3))},
        },
    }


def test_tournament_heatmap_has_axis_titles_intervals_n_and_explains_empty_cells(tmp_path, captured):
    T.write_heatmap(tournament_result(), tmp_path / "t.png")
    (fig,) = captured
    words = texts(fig)
    assert "spy played by" in words and "villagers played by" in words
    assert "0.50\n[0.10, 0.90]\nn=4" in words and "0.25\n[0.05, 0.70]\nn=4" in words
    assert words.count("not played") == 2 and any("--self-play" in w for w in words)
    assert any("log-odds" in w for w in words)  # the Bradley–Terry axis says what a rating is


def test_tournament_analysis_names_its_axes():
    records = tofukingdom_tournament.analyze([], ["a", "b"], n_resamples=10, seed=0)
    for m in records["matrices"].values():
        assert m["rows_title"] and m["cols_title"]


def test_bias_report_draws_shares_against_uniform(tmp_path, captured):
    opts = SPYGAME.parse_options({"limit": 2, "probe": True})
    records = [asyncio.run(play_case(SPYGAME, r, 0, opts, scripted_binder(SPYGAME, {"*": "first_option"})))
               for r in SPYGAME.select_rows(opts)]
    write_records(tmp_path / "probe.jsonl", records)
    png = tmp_path / "bias.png"
    assert (
        bias_report.main([str(tmp_path / "probe.jsonl"), "--out", str(tmp_path / "bias.json"), "--plot", str(png)]) == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (fig,) = captured
    words = texts(fig)
    report = json.loads((tmp_path / "bias.json").read_text())
    option = report["all_voters"]["factors"]["option_position"]
    assert any(f"p={option['p_value']:.3g}" in w for w in words)
    assert "position in the voter's option list" in words and "share of votes" in words
    for path in (png, tmp_path / "bias.json"):
        assert stat.S_IMODE(path.stat().st_mode) == usual_mode()


def test_outputs_get_the_usual_mode_not_mkstemps_private_one(tmp_path):
    old = os.umask(0o022)
    try:
        path = atomic_write(tmp_path / "x.json", lambda tmp: open(tmp, "w").write("{}"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


AGE_RESULT = {"models": ["m"], "adversary": ["adv/model"], "topics": ["food", "travel"],
              "macro": {"m": {"value": 0.5, "ci": [0.2, 0.8], "n": 1}},
              "table": {"m": {"food": {"value": 0.5, "ci": [0.2, 0.8], "n": 3}, "travel": None}}}


def test_age_topic_heatmap_names_the_adversary_and_n_per_cell(tmp_path, captured):
    age_topics.write_heatmap(AGE_RESULT, tmp_path / "a.png")
    (fig,) = captured
    words = texts(fig)
    assert any("every other seat played by: adv/model" in w for w in words)
    assert "0.50\n[0.20, 0.80]\ngames=3" in words and "no games" in words and "0.50\n[0.20, 0.80]\nlists=1" in words
    assert "evaluated model (seat 1)" in words


def test_tournament_and_age_files_are_readable_by_others(tmp_path):
    T.write_json({"a": 1}, tmp_path / "t.json")
    T.write_heatmap(tournament_result(), tmp_path / "t.png")
    json_path, png_path = age_topics.write_outputs(AGE_RESULT, tmp_path / "age")
    for path in (tmp_path / "t.json", tmp_path / "t.png", json_path, png_path):
        assert stat.S_IMODE(path.stat().st_mode) == usual_mode()
