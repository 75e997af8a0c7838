"""Fresh cases: games drawn on demand from a lexicon in the wheel, in no list we ship or any paper
published (issue 61, docs/fresh-cases.md).

Owns the lexicon (data/: WordNet 3.0 nouns with wordfreq frequencies, made by
scripts/build_lexicon.py), the difficulty measures of a case per game (difficulty.py), the draw
of fresh cases matched to the published list's difficulty (games/), and `fresh:SEED` turned into
a data file in the game's own format (resolve.py), which the fronts pass on as `data=FILE`.

Fresh data is a version of the data, not of the game: nothing here is imported by a game or the
engine, so no game's fingerprint covers it (engine/versions.py); a report names the seed and the
lexicon's digest beside the dataset's (analysis/report/file.py).

May import engine/ and games/ (to read the shipped lists); never a front (pytest_plugin/,
inspect_ext/, cli/, arena/) nor analysis/.
"""
