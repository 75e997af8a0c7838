"""pytest-gameeval: evaluate LLMs by making them play conversational games."""

__version__ = "0.6.0"


def read_report(path: str) -> list[dict]:
    """A gameeval report as rows for pandas, one per game: `game`, `version`, `model`, `headline`,
    `value`, `ci_low`, `ci_high` (95%), `n`, the same for `legal_first_try`, and `cases_played`.
    The file is checked as `--gameeval-baseline` checks it (one error line naming it when it is
    not a report, a value is out of range or its records are not the ones written with it).

        import pandas as pd, pytest_gameeval
        df = pd.DataFrame(pytest_gameeval.read_report("reports/gameeval-report.json"))
    """
    from pytest_gameeval.analysis.history.rows import report_rows  # lazy: every pytest run imports this package
    from pytest_gameeval.analysis.report.file import read_report as read_checked

    return report_rows(read_checked(path))
