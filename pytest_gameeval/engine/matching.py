"""Host-side word matching: did a text mention (or guess) a word?

Whole words only, case-insensitive, plural- and possessive-aware, with space/underscore/
hyphen/joined variants for multi-word labels. "pineapple" does not mention "apple";
"Apples." does; "lawn-mower" is "lawn mower". Every rule compares `normalize`d text, in which
lookalike letters ("аpple" with a Cyrillic "а") are the Latin letters they imitate and invisible
characters (zero-width spaces, soft hyphens, bidi marks) are gone.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs.confusables import confusables_data
from rapidfuzz.distance import Jaro

_IRREGULAR_PLURALS = {
    "man": ["men"], "woman": ["women"], "mouse": ["mice"], "child": ["children"],
    "person": ["people"], "tooth": ["teeth"], "foot": ["feet"], "goose": ["geese"],
    "ox": ["oxen"], "louse": ["lice"], "knife": ["knives"], "leaf": ["leaves"],
    "wife": ["wives"], "life": ["lives"], "wolf": ["wolves"], "calf": ["calves"],
    "half": ["halves"], "shelf": ["shelves"], "loaf": ["loaves"], "thief": ["thieves"],
    "cactus": ["cacti"], "fungus": ["fungi"],
}

# Modifiers that make a homograph label (e.g. "can") a noun: "a can", "the can", "tin can".
_NOUN_MARKERS = (
    "a", "an", "the", "this", "that", "my", "your", "his", "her", "its", "one", "some",
    "tin", "soda", "metal", "aluminium", "aluminum", "beer", "paint", "trash", "garbage",
    "watering", "empty", "open", "kind of", "type of", "sort of",
)


def _lookalike_table() -> dict[int, str]:
    """Each non-ASCII character that Unicode's confusables data (UTS #39) lists as looking like
    one ASCII letter or digit, mapped to it: Cyrillic "а" -> "a", Greek "ο" -> "o"."""
    table: dict[int, str] = {}
    for char, glyphs in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        latin = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()]
        if latin:
            table[ord(char)] = latin[0]
    return table


_LOOKALIKES = _lookalike_table()


def normalize(text: str) -> str:
    """The form every text rule compares: lookalike letters made Latin, invisible characters
    dropped, accents stripped, apostrophes and dashes unified, lower case."""
    text = unicodedata.normalize("NFKD", text).translate(_LOOKALIKES)
    text = "".join(c for c in text if not unicodedata.combining(c) and unicodedata.category(c) != "Cf")
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'")
    text = re.sub("[\u2010-\u2015\u2212]", "-", text)
    return text.lower()


def plural_forms(word: str) -> list[str]:
    """The word and the plural forms a speaker might use (over-generation is harmless)."""
    forms = {word, word + "s", word + "es"}
    forms.update(_IRREGULAR_PLURALS.get(word, []))
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        forms.add(word[:-1] + "ies")
    if word.endswith("f"):
        forms.add(word[:-1] + "ves")
    if word.endswith("fe"):
        forms.add(word[:-2] + "ves")
    return sorted(forms, key=len, reverse=True)


def _words(label: str) -> list[str]:
    return [w for w in re.split(r"[\s_\-]+", normalize(label).strip()) if w]


def _phrase_pattern(label: str, *, plural_only: bool = False) -> str:
    words = _words(label)
    if not words:
        raise ValueError(f"empty label {label!r}")
    last_forms = plural_forms(words[-1])
    if plural_only:
        last_forms = [f for f in last_forms if f != words[-1]] or last_forms
    last = "(?:" + "|".join(map(re.escape, last_forms)) + ")"
    sep = r"[\s_\-]*"  # "lawn mower", "lawn_mower", "lawn-mower", "lawnmower"
    body = sep.join([*map(re.escape, words[:-1]), last])
    return rf"(?<![a-z0-9]){body}(?:'s|s'|')?(?![a-z0-9])"


@lru_cache(maxsize=4096)
def _compile(label: str, homograph: bool) -> re.Pattern[str]:
    if not homograph:
        return re.compile(_phrase_pattern(label))
    markers = "|".join(re.escape(m) for m in _NOUN_MARKERS)
    singular = rf"(?:(?<![a-z0-9])(?:{markers})\s+{_phrase_pattern(label)}|^\W*{_phrase_pattern(label)}\W*$)"
    return re.compile(rf"{singular}|{_phrase_pattern(label, plural_only=True)}")


class WordMatcher:
    """Matches a word and its aliases in free text, the way a careful host would.

    `homograph=True` is for labels that are also common function words ("can"): the
    singular then counts only after a noun marker ("a can", "tin can") or standing alone,
    so "Can it fly?" does not guess "can"; plurals ("cans") always count.
    """

    def __init__(self, label: str, aliases: tuple[str, ...] | list[str] = (), homograph: bool = False):
        self.label = label
        self.patterns = [_compile(label, homograph)] + [_compile(a, False) for a in aliases]

    def mentioned_in(self, text: str) -> bool:
        norm = normalize(text)
        return any(p.search(norm) for p in self.patterns)


def mentions(text: str, label: str, aliases: tuple[str, ...] | list[str] = (), homograph: bool = False) -> bool:
    return WordMatcher(label, tuple(aliases), homograph).mentioned_in(text)


def squash(text: str) -> str:
    """Case, space and punctuation folded away: 'Mercedes-Benz' -> 'mercedesbenz'."""
    return re.sub(r"[^a-z0-9]", "", normalize(text))


def jaro_match(guess: str, target: str, synonyms: list[str] | tuple[str, ...] = (), threshold: float = 0.8) -> bool:
    """AGE's rule: Jaro similarity above `threshold` after normalisation, or an accepted synonym."""
    g = squash(guess)
    if not g:
        return False
    if any(g == squash(s) for s in synonyms):
        return True
    return Jaro.similarity(g, squash(target)) > threshold
