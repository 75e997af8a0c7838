"""The SpyGame vote-bias chart (`gameeval bias-report --plot`, cli/bias_report.py): each factor's
vote shares against the uniform expectation, over the report of games/spygame/metrics.py."""

from __future__ import annotations

from typing import Any

from pytest_gameeval.engine.files import save_figure


def write_bias_plot(report: dict[str, Any], path: str) -> None:
    """One panel per factor: each category's share of the votes with its 95% Wilson interval, and
    the share a voter choosing uniformly among its options would give (the chi-square's expectation)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    voters = report["all_voters"]
    factors = voters["factors"]
    fig, axes = plt.subplots(1, len(factors), figsize=(4.6 * len(factors), 4.2))
    for ax, (factor, entry) in zip(axes, factors.items()):
        cats = entry["categories"]
        x = list(range(len(cats)))
        shares = [c["share"] or 0.0 for c in cats]
        err = [[s - (c["rate"]["ci"][0] or 0.0) for s, c in zip(shares, cats)],
               [(c["rate"]["ci"][1] or 0.0) - s for s, c in zip(shares, cats)]]
        ax.bar(x, shares, color="tab:blue", alpha=0.75, label="observed share (95% CI)")
        ax.errorbar(x, shares, yerr=err, fmt="none", ecolor="k", capsize=3)
        ax.plot(x, [c["expected_share"] or 0.0 for c in cats], "r_", markersize=18, mew=2, label="expected if unbiased")
        ax.set_xticks(
            x,
            [str(c["value"]) for c in cats],
            rotation=30 if factor == "name" else 0,
            ha="right" if factor == "name" else "center",
            fontsize=8,
        )
        ax.set_xlabel({"name": "voted-for player", "speaking_position": "speaking position of the voted-for player",
                       "option_position": "position in the voter's option list"}.get(factor, factor), fontsize=9)
        ax.set_ylabel("share of votes", fontsize=9)
        verdict = (
            "no test"
            if entry["p_value"] is None
            else f"chi2={entry['chi2']:.2f}, dof={entry['dof']}, p={entry['p_value']:.3g}"
        )
        ax.set_title(f"{factor.replace('_', ' ')}\n{verdict}", fontsize=10)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=8, loc="upper right")
    fig.suptitle(f"Vote bias over {report['games']} games: {voters['votes']} first-round votes, "
                 f"{voters['abstentions']} abstentions", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)
