"""Write pytest_gameeval/fresh/data/number_forms.json: the singular and plural (by inflect) of the
last word of every word a fresh case may show (each lexicon noun, its aliases and its related
words), so that the draw folds number without importing inflect (~3.5 s at import on 2 cores).

    pip install "inflect==7.6.0"   # the dev extra has it
    python scripts/build_number_forms.py

Same lexicon, same inflect version -> same file, byte for byte; tests/fresh/test_word_claims.py
checks the shipped file against inflect.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_gameeval.fresh.lexicon import data_dir, lexicon, norm  # noqa: E402

OUT = "number_forms.json"


def last_words() -> list[str]:
    """The last word of every word a fresh case may show, normalised (fresh/lexicon.norm)."""
    words: set[str] = set()
    for e in lexicon().values():
        for w in (e.word, *e.aliases, *e.related):
            if norm(w):
                words.add(norm(w).rpartition(" ")[2])
    return sorted(words)


def number_forms(words: list[str]) -> dict[str, list[str]]:
    """word -> its other forms (inflect's plural and singular, as they differ from the word)."""
    import inflect

    engine = inflect.engine()
    out = {}
    for w in words:
        other = sorted({f for f in (engine.plural_noun(w), engine.singular_noun(w)) if f and f != w})
        if other:
            out[w] = other
    return out


def render() -> str:
    forms = number_forms(last_words())  # one word a line, so a diff of the file reads word by word
    return "{\n" + ",\n".join(f"{json.dumps(w)}: {json.dumps(f)}" for w, f in sorted(forms.items())) + "\n}\n"


if __name__ == "__main__":
    (data_dir() / OUT).write_text(render(), encoding="utf-8")
    print(f"wrote {data_dir() / OUT}")
