"""What training and run time share: the Wikidata alignment, token features for the entity
tagger, the grouping of a document's mentions into entities (with pronoun and nominal
resolution), and the features of an entity pair in a sentence.

Both sides call the same functions — training on gold mentions, run time on tagged ones — so a
feature means the same thing in both places.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np

from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.pipeline.extract import INITIALISM_END, NAME_PARTICLES
from semantic_rdf.core.identity import fold as _fold_uncached
from semantic_rdf.pipeline.statistical.text import Token, latin, web_address
from semantic_rdf.pipeline.statistical.towns import canonical_country, load_towns

__all__ = [
    "alignment",
    "ner_features",
    "DocState",
    "SentMention",
    "pair_features",
    "ENTITY_TYPES",
    "CrossPair",
    "cross_pairs",
    "CrossCandidates",
    "cross_candidates",
    "cross_mentions",
    "Components",
    "cross_features",
    "DocPlaces",
    "CrossContext",
    "together_in",
    "CROSS_TAIL",
    "sentence_bag",
    "end_words",
    "END_WORD_FAMILIES",
    "BAG_FAMILY",
]

ENTITY_TYPES = ("PER", "ORG", "LOC", "MISC")  # TIME and NUM are tagged but never become entities


# ------------------------------------------------------------------ Wikidata alignment


@lru_cache(maxsize=1)
def alignment() -> dict[str, tuple[str, bool]]:
    """Wikidata property id -> (predicate name, inverse?) from ontology/taxonomy.ttl.

    Several predicates may align with one property (born_in and place_of_birth with P19): the first
    exactMatch in the file wins, then the first inverseMatch, then the first broadMatch."""
    import pyoxigraph as ox

    from semantic_rdf.core import vocab
    from semantic_rdf.core.resources import files

    ns = vocab.NS
    skos = "http://www.w3.org/2004/02/skos/core#"
    wdt = "http://www.wikidata.org/prop/direct/"
    rank = {skos + "exactMatch": 0, ns + "inverseMatch": 1, skos + "broadMatch": 2}
    names: dict[str, str] = {}
    links: list[tuple[int, int, str, str, bool]] = []
    order = 0
    for path in files("ontology", "taxonomy.ttl"):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            p = t.predicate.value
            if p == ns + "name":
                names[t.subject.value] = t.object.value
            elif p in rank and t.object.value.startswith(wdt):
                order += 1
                links.append((rank[p], order, t.object.value[len(wdt) :], t.subject.value, p == ns + "inverseMatch"))
    out: dict[str, tuple[str, bool]] = {}
    for _, _, pid, iri, inverse in sorted(links):
        if pid not in out and iri in names:
            out[pid] = (names[iri], inverse)
    return out


# ------------------------------------------------------------------ entity tagger features


@lru_cache(maxsize=200_000)
def _shape(w: str) -> str:
    out: list[str] = []
    for c in w:
        if c.isupper():
            k = "X"
        elif c.islower():
            k = "x"
        elif c.isdigit():
            k = "d"
        else:
            k = c
        if not out or out[-1] != k:
            out.append(k)
    return "".join(out)[:6]


@lru_cache(maxsize=200_000)
def _word_feats(w: str) -> tuple[str, ...]:
    lw = w.lower()
    f = ["w=" + lw, "sh=" + _shape(w), "p3=" + lw[:3], "s3=" + lw[-3:], "s2=" + lw[-2:]]
    if w[:1].isupper():
        f.append("up")
    if w.isupper() and len(w) > 1:
        f.append("allup")
    if w.isdigit():
        f.append("num" + str(min(len(w), 5)))
    if gz.country_of_demonym(w):
        f.append("demonym")
    cls = gz.lexicon_class(w)
    if cls:
        f.append("gz=" + cls)
    elif w[:1].isupper() and fold(w) in _town_words():
        f.append("town")  # a town's name (towns.tsv.gz): a place, or a name that a person, a firm or a word shares
    sc = gz.suffix_class(w) if w[:1].isupper() else None
    if sc:
        f.append("sfx=" + sc)
    return tuple(f)


@lru_cache(maxsize=200_000)
def _context_feats(w: str) -> tuple[tuple[str, ...], ...]:
    """The features a word gives its neighbours at offsets -2, -1, +1, +2 (in that order)."""
    lw, sh = w.lower(), _shape(w)
    return tuple((f"{d}w={lw}", f"{d}sh={sh}") for d in (-2, -1, 1, 2))


@lru_cache(maxsize=200_000)
def _kept_word_feats(w: str, keep: frozenset[str]) -> tuple[str, ...]:
    return tuple(x for x in _word_feats(w) if x in keep)


@lru_cache(maxsize=200_000)
def _kept_context_feats(w: str, keep: frozenset[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(x for x in pair if x in keep) for pair in _context_feats(w))


def ner_features(words: list[str], keep: frozenset[str] | None = None) -> list[list[str]]:
    """CRF features for each token of one sentence: the word, its shape and affixes, and its neighbours'.

    keep: the attributes the CRF model has weights for (run time); the others are left out, in order.
    CRFsuite skips an attribute it does not know, so the tags are the same, but handing it hundreds of
    thousands of strings it then looks up and drops was half the tagging time."""
    n = len(words)
    if keep is None:
        base = [_word_feats(w) for w in words]
        ctx = [_context_feats(w) for w in words]
    else:
        base = [_kept_word_feats(w, keep) for w in words]
        ctx = [_kept_context_feats(w, keep) for w in words]
    # column by column, each token's features in the order training saw: its own, BOS, the neighbours
    # at -2, -1, +1, +2, the bigram with the previous word
    out = [list(b) for b in base]
    if n and "town" in _word_feats(words[0]):
        # a sentence's first word has a capital whatever it is ("Salt is mined …", "Most of …"): its own feature, in
        # the place "town" has among the word's features
        out[0] = [x for x in ("town0" if x == "town" else x for x in _word_feats(words[0])) if keep is None or x in keep]
    if n and (keep is None or "BOS" in keep):
        out[0].append("BOS")
    for f, c in zip(out[2:], ctx):
        f.extend(c[0])
    for f, c in zip(out[1:], ctx):
        f.extend(c[1])
    for f, c in zip(out, ctx[1:]):
        f.extend(c[2])
    for f, c in zip(out, ctx[2:]):
        f.extend(c[3])
    lower = [w.lower() for w in words]
    for f, a, b in zip(out[1:], lower, lower[1:]):
        bi = f"bi=-1{a}|{b}"
        if keep is None or bi in keep:
            f.append(bi)
    for i, x in _lexicon_spans(tuple(w.casefold() for w in words)):
        if keep is None or x in keep:
            out[i].append(x)
    return out


_LETTER_WORDS = re.compile(r"[^\W\d_]+(?: [^\W\d_]+)+")


@lru_cache(maxsize=1)
def _multiword_names() -> tuple[dict[tuple[str, ...], str], frozenset[str]]:
    """Folded tokens of every listed name of two to five tokens -> its lexicon class ("New South Wales"), and of
    the town table's ("Punta Arenas") -> "Town"; and the first words of those names (where a match can begin)."""
    from semantic_rdf.pipeline.statistical.text import tokenize

    out: dict[tuple[str, ...], str] = {}
    for names in (gz.COUNTRIES, gz.CITIES, gz.REGIONS):
        for name in sorted(names):
            key = tuple(t.text.casefold() for t in tokenize(name))
            cls = gz.lexicon_class(name)
            if 2 <= len(key) <= 5 and cls:
                out.setdefault(key, cls)
    # the town table's names of several words, as the tokenizer splits them: a name of letters and spaces alone at its
    # spaces, which gives the same words without the tokenizer's cost at start-up
    for town in sorted(load_towns().towns):
        if " " in town:
            key = tuple(town.casefold().split()) if _LETTER_WORDS.fullmatch(town) else tuple(t.text.casefold() for t in tokenize(town))
            if 2 <= len(key) <= 5:
                out.setdefault(key, "Town")
    return out, frozenset(k[0] for k in out)


@lru_cache(maxsize=1)
def _town_words() -> frozenset[str]:
    """The town table's names of one word, folded (the CRF's "town" feature)."""
    return frozenset(name for name in load_towns().towns if " " not in name)


def _lexicon_spans(folded: tuple[str, ...]) -> list[tuple[int, str]]:
    """(token, feature) for the tokens of each listed multi-word name in a sentence, longest first: the
    CRF's single-word lexicon feature cannot see that "South" and "Wales" together name a region."""
    names, first = _multiword_names()
    got: list[tuple[int, str]] = []
    i, n = 0, len(folded)
    while i < n:
        if folded[i] not in first:
            i += 1
            continue
        for k in range(min(5, n - i), 1, -1):
            cls = names.get(folded[i : i + k])
            if cls:
                got.extend((j, ("mwB=" if j == i else "mwI=") + cls) for j in range(i, i + k))
                i += k
                break
        else:
            i += 1
    return got


# ------------------------------------------------------------------ entities in a document

_PRON_PER = {"he": "subj", "she": "subj", "him": "obj", "his": "poss", "her": "poss", "hers": "poss"}
_GENDER = {"he": "m", "him": "m", "his": "m", "she": "f", "her": "f", "hers": "f"}
_PRON_IT = {"it": "subj", "its": "poss"}
# definite nominals and the entity type they refer back to
_NOMINALS = {
    **dict.fromkeys(
        "company firm band group team club university college school party newspaper magazine "
        "label organization organisation agency corporation airline network".split(),
        "ORG",
    ),
    **dict.fromkeys("album film movie song single novel book series game show opera play episode single poem painting magazine".split(), "MISC"),
    **dict.fromkeys("city town village river municipality county district region province island lake station church".split(), "LOC"),
}
_RESOLVABLE = frozenset(_PRON_PER) | frozenset(_PRON_IT) | frozenset(_NOMINALS)
# the head noun of a definition ("Goodooga is a village in …", "Pointr is a British technology company") -> the type
# it gives the name defined. Not the nouns that define things of several types: a "group", "series" or "network"
# of anything, a "community" online or of nuns, a "bank" of sand, a "player" of media, a "pilot" episode, a string
# "quartet" (a work), a "broadcaster", "museum", "producer" or "publisher" (a person or a firm), "a model for"
_KIND_NOUNS = {
    **{w: typ for w, typ in _NOMINALS.items() if w not in ("group", "series", "network")},
    **dict.fromkeys(
        "town village hamlet settlement suburb neighbourhood neighborhood borough township commune municipality parish "
        "locality place capital seat state country territory colony oblast voivodeship prefecture canton "
        "governorate mountain hill volcano glacier peninsula archipelago atoll bay gulf strait sea creek stream tributary "
        "valley desert forest airport stadium bridge castle cathedral street road highway".split(),
        "LOC",
    ),
    **dict.fromkeys(
        "corporation conglomerate manufacturer retailer institute academy society association orchestra choir ensemble charity foundation".split(),
        "ORG",
    ),
    **dict.fromkeys(
        "person actor actress singer songwriter rapper musician guitarist drummer bassist pianist violinist vocalist "
        "composer conductor politician diplomat lawyer judge senator governor mayor writer author novelist poet playwright "
        "journalist editor critic painter sculptor photographer architect artist dancer comedian director "
        "screenwriter footballer cricketer athlete boxer wrestler swimmer cyclist skier coach businessman "
        "businesswoman entrepreneur executive economist scientist physicist chemist biologist mathematician philosopher "
        "historian sociologist psychologist physician surgeon engineer inventor explorer astronaut soldier officer "
        "priest bishop cardinal monk theologian scholar professor academic linguist activist king queen prince princess "
        "emperor empress sultan nobleman noblewoman".split(),
        "PER",
    ),
}
# a kind noun that names no kind before "of": "a school of philosophy", "a church of the faithful"
_KIND_BUT_OF = frozenset("school church".split())
_COPULAS = frozenset("is was are were".split())
_DETERMINERS = frozenset("a an the".split())
# the words that end the noun phrase after "is a" ("a village in", "a singer who", "a company based in", "an adviser
# to"); its parts joined by these each end in a noun, and the last kind noun among those is its head ("an American
# film and television actor", "a city and municipality")
_PHRASE_ENDS = frozenset(
    "of in on at from near to who which that whose where with by for but . ; : ( ) – — - located situated based "
    "known founded born written directed produced released named owned headquartered composed published created "
    "formed established built designed operated".split()
)
_PART_JOINS = frozenset("and or & ,".split())
# words after which a place named is no longer the one a definition places its name in
_DEFINITION_ENDS = frozenset("on along near border borders bank shore coast which that who where ; between opposite after from by with than".split())
# a direction before "of" leaves the clause: "some 65 km north-east of Bucharest" is not where the commune lies
_DIRECTIONS = frozenset("east west north south northeast northwest southeast southwest north-east north-west south-east south-west".split())
# a station after one of these broadcasts: an organisation, where a railway station is a place
_BROADCAST = frozenset("radio television tv broadcasting fm am".split())
_SAID_REACH = 30  # tokens between the name and "is": a bracket (a birth date, another name) or an apposition fits
_SAID_ASIDES = 2  # brackets or comma-set appositions between the name and "is"
_PHRASE_REACH = 10  # words of the noun phrase after "is a" read for its head


def definition(words: list[str], a: int, b: int) -> tuple[str, int] | None:
    """(type, the head noun's index) of a sentence of lower-cased `words` that opens with a name (words a..b) and
    defines it ("Goodooga is a village in …", "Kiirunavaara (Northern Sami: Gironvárri) is a mountain", "Pointr, a
    start-up, is a company", "Tom Hanks is an American film and television actor"): the head of the noun phrase
    after "is a"/"was the" (`_head_noun`), read in `_KIND_NOUNS`. None when the sentence does not open with the name
    (or "the" and the name), or says no kind listed there.

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> definition([t.text.lower() for t in tokenize("Goodooga (pop. 262) is a small village in New South Wales.")], 0, 1)
    ('LOC', 9)
    """
    if a > 1 or (a == 1 and words[0] != "the"):
        return None
    k = _copula_after(words, b)
    if k is None or k + 1 >= len(words) or words[k + 1] not in _DETERMINERS:
        return None
    return _head_noun(words, k + 2)


def _copula_after(words: list[str], b: int) -> int | None:
    """The index of "is", "was" … right after the name that ends at word b, past up to `_SAID_ASIDES` brackets and
    comma-set appositions ("Pointr, a start-up based in London, is"); None when another word stands between (a list:
    "Heeney, Silverthorne and Dillon are towns")."""
    n, k = len(words), b
    for _ in range(_SAID_ASIDES + 1):
        if k >= n:
            return None
        w = words[k]
        if w in _COPULAS:
            return k
        close = {"(": ")", ",": ","}.get(w)
        if close is None:
            return None
        k = next((j + 1 for j in range(k + 1, min(n, k + _SAID_REACH)) if words[j] == close), n)
    return None


def _head_noun(words: list[str], start: int) -> tuple[str, int] | None:
    """(type, index) of the head of the noun phrase that begins at word `start`: the last word of each of its parts
    (joined by "and", "or", a comma) that `_KIND_NOUNS` lists, the last such one, before a word that ends the phrase
    (`_PHRASE_ENDS`) or a number ("a village 5 km north of")."""
    got = None
    last = -1
    for j in range(start, min(len(words), start + _PHRASE_REACH) + 1):
        w = words[j] if j < len(words) else "."
        ends = w in _PHRASE_ENDS or any(ch.isdigit() for ch in w) or j == start + _PHRASE_REACH
        if (ends or w in _PART_JOINS) and last >= 0:
            got = _kind_of(words, last) or got
            last = -1
        if ends:
            break
        if w not in _PART_JOINS and w not in _DETERMINERS:
            last = j
    return got


def _kind_of(words: list[str], j: int) -> tuple[str, int] | None:
    """(type, j) when word j is a kind noun in its place: a radio station is an organisation, a school "of"
    something no school."""
    w = words[j]
    if w == "station" and j > 0 and words[j - 1] in _BROADCAST:
        return "ORG", j
    if w in _KIND_BUT_OF and j + 1 < len(words) and words[j + 1] == "of":
        return None
    kind = _KIND_NOUNS.get(w)
    return (kind, j) if kind else None


def _in_definition(words: list[str], head: int, t: int, mentions: list[SentMention]) -> bool:
    """Whether the mention at word t stands in the defining clause after the head noun at `head` ("a village in
    the state of New South Wales in Brewarrina Shire"), before a word that leaves it ("on the border with",
    "located along", "which", "after Helsinki", "west of", "and the twin town of"; not the words of a name: "New
    South Wales")."""
    if t <= head:
        return False
    named = {k for m in mentions if head < m.a < t for k in range(m.a, m.b)}
    return not any(
        k not in named
        and (
            words[k] in _DEFINITION_ENDS
            or (words[k] in _DIRECTIONS and k + 1 < t and words[k + 1] == "of")
            or (words[k] == "and" and k + 1 < t and words[k + 1] in _DETERMINERS)
        )
        for k in range(head + 1, t)
    )


def definition_of(words: list[str], h: SentMention, memo: SentenceMemo | None) -> tuple[str, int] | None:
    """`definition` of the sentence for the named mention h, kept in the sentence's `memo` when one is given: every
    pair whose head opens the sentence asks it."""
    key = (h.a, h.b)
    if memo is not None and key in memo.definitions:
        return memo.definitions[key]
    got = definition(words, h.a, h.b)
    if memo is not None:
        memo.definitions[key] = got
    return got


_LEAD_STRIP = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_TRAIL_STRIP = re.compile(r"(?:\s*['’]s|[\s,;:.!?\"”’]+)$")
# quotes, angle quotes, markup and list marks a tagged span can take in at either end ("<Tom Becker>", "«Roma»")
_EDGE_MARKS = '"“”„«»‹›<>*_#|•·'


# fold is pure and called for every mention and word of a name: a cache of recent names saves the regexes
fold = lru_cache(maxsize=65536)(_fold_uncached)


_NICKNAME = re.compile(r"\s*[\"“”]\s*([^\"“”]+?)\s*[\"“”]\s*")


_MIDDLE_INITIAL = re.compile(r"[A-Z]\.?")


def name_forms(name: str) -> list[str]:
    """The other ways a person's name is written: 'Michael John "Mike" Padden' (a quoted nickname) is also
    "Michael John Padden" and "Mike Padden"; "Charles J. Fillmore" (middle initials) is also "Charles
    Fillmore". A question asks about either; the stored name stays as the text wrote it."""
    forms = []
    m = _NICKNAME.search(name)
    if m is not None:
        without = (name[: m.start()] + " " + name[m.end() :]).split()
        forms = [" ".join(without)] if len(without) > 1 else []
        if without and m.end() < len(name):
            forms.append(f"{m.group(1)} {without[-1]}")
    words = name.split()
    if len(words) > 2 and not _MIDDLE_INITIAL.fullmatch(words[0]) and not _MIDDLE_INITIAL.fullmatch(words[-1]):
        kept = [w for w in words[1:-1] if not _MIDDLE_INITIAL.fullmatch(w)]
        if len(kept) < len(words) - 2 and m is None:
            forms.append(" ".join([words[0], *kept, words[-1]]))
    return forms


@lru_cache(maxsize=65536)  # pure, and called for every mention
def clean_name(s: str) -> str:
    """A tagged span's text as a name: one space between words, no angle brackets, no leading article, no
    possessive, no punctuation or marks at its ends, and a bracket only with its partner ("Queen (band)", not
    "Foo (bar")."""
    s = " ".join(s.replace("<", " ").replace(">", " ").split())  # markup's angle brackets are in no name, inside either
    s = _LEAD_STRIP.sub("", s)
    while True:
        before = s
        edged = s.strip().strip(_EDGE_MARKS)
        s = _TRAIL_STRIP.sub("", edged)
        if edged[len(s) : len(s) + 1] == "." and INITIALISM_END.search(s + "."):
            s += "."
        for opener, closer in (("(", ")"), ("[", "]")):
            if s.endswith(closer) and s.count(closer) > s.count(opener):
                s = s[:-1]
            elif s.startswith(opener) and s.count(opener) > s.count(closer):
                s = s[1:]
            elif s.count(opener) > s.count(closer):  # a span cut inside a bracket: the name ends before it
                s = s[: s.rindex(opener)]
        if s == before:
            return s.strip()


@dataclass
class Entity:
    name: str
    type: str
    aliases: set[str] = field(default_factory=set)
    first_sent: int = 0
    mentions: int = 0
    gender: str = ""  # "m" or "f" once a confident he/she resolved to it; the other never will
    votes: dict[str, int] = field(default_factory=dict)  # the tagger's type for each mention: the majority wins
    said: str = ""  # the type a sentence defining it gives it ("Goodooga is a village"): it outvotes the tagger


@dataclass(frozen=True, slots=True)
class SentMention:
    a: int  # token indices in the sentence, a <= b (exclusive); -1/-1 for an implicit mention
    b: int
    entity: int
    kind: str  # named | demonym | pron | nominal | implicit
    confidence: float
    surface: str
    start: int = -1  # character offsets into the document text (-1 for implicit)
    end: int = -1


@dataclass(slots=True)
class SentenceMemo:
    """What the pairs of one sentence share, made once for them: its bags of words by side (`_sentence_words`) and
    the definition each of its opening names is given (`definition_of`)."""

    bags: dict[str, list[str]] = field(default_factory=dict)
    definitions: dict[tuple[int, int], tuple[str, int] | None] = field(default_factory=dict)


_RESOLVE_FLOOR = 0.75  # below this a pronoun or nominal is left unresolved: a missed fact beats a wrong one


class DocState:
    """A document's entities, grown one sentence at a time.

    With `gold` entity ids (training) mentions join the gold entity; otherwise (run time) a mention
    joins an earlier entity with the same folded name, a person's surname or partial name joins the
    unique earlier person whose name holds those words, and a demonym joins (or names) its country."""

    def __init__(self, definitions: bool = True) -> None:
        # definitions: a sentence that defines a name gives its entity its type (`_defined`); off for the corpora's
        # own mentions, whose types are the annotators'
        self.definitions = definitions
        self.entities: list[Entity] = []
        self.by_key: dict[str, int] = {}
        self.sent = -1
        self.first: int | None = None  # the topic: the first entity of the document (or of its section: new_section)
        self.article: int | None = None  # the topic before the section headings that named no one (new_section)
        self.recent: list[list[int]] = []  # entities named in each of the last sentences
        self.lead: int | None = None  # the person the last sentence opened with, named or as he/she (`_resolve_person`)
        self.known: dict[tuple[str, ...], str] = {}  # word sequences named earlier in the document -> type
        self.by_word: dict[str, set[int]] = {}  # folded word -> entities whose name holds it

    def new_section(self, article: bool) -> None:
        """A heading: the next entity named is the section's topic, and no pronoun reaches back past the
        heading. `article`: the heading is a name and nothing else ("# Chinua Achebe"), so a new article
        begins; otherwise ("## Early life") the section stays part of the article, and "she" with no person in
        reach of the section still resolves to the article's topic (`_resolve_person`)."""
        self.article = None if article else (self.first if self.first is not None else self.article)
        self.first = None
        self.recent = []
        self.lead = None

    def _index_words(self, name: str, i: int) -> None:
        for w in fold(name).split():
            self.by_word.setdefault(w, set()).add(i)

    def _entity(self, surface: str, typ: str, gold: int | None, extend: bool = True) -> tuple[int, str, str]:
        """The entity a mention names (see the class); `extend` False: a fuller name is not read as an earlier
        person's (it stands beside a namesake, as in a list of a family's children)."""
        name = clean_name(surface) or surface
        kind = "named"
        if typ == "LOC":
            country = gz.country_of_demonym(name)
            if country:
                name, kind = country, "demonym"
        if gold is not None:
            key = f"#gold{gold}"
        else:
            key = fold(name)
            if key not in self.by_key and typ == "PER":
                words = set(key.split())
                cands = set.intersection(*(self.by_word.get(w, set()) for w in words)) if words else set()
                # the same words in the other order: a name given family name first ("Higuchi Ichiyō" … "Ichiyō Higuchi")
                same = [i for i in sorted(cands) if self.entities[i].type == "PER" and set(fold(self.entities[i].name).split()) == words]
                hits = [
                    i
                    for i in sorted(cands)
                    if self.entities[i].type == "PER"
                    and len(self.entities[i].name.split()) > len(words)
                    and words <= set(fold(self.entities[i].name).split())
                ]
                if len(words) > 1 and len(same) == 1:
                    self.by_key[key] = same[0]
                elif len(hits) == 1:
                    self.by_key[key] = hits[0]
                elif not hits and extend and len(words) > 2:
                    # the name of an earlier person with middle names added ("Grace Hopper" ... "Grace Brewster
                    # Hopper"): the same first and last word, the earlier one's words all in it
                    seq = key.split()
                    fuller = [
                        i
                        for i in sorted(self.by_word.get(seq[0], set()) & self.by_word.get(seq[-1], set()))
                        if self.entities[i].type == "PER"
                        and 1 < len(nw := fold(self.entities[i].name).split()) < len(seq)
                        and (nw[0], nw[-1]) == (seq[0], seq[-1])
                        and set(nw) <= words
                    ]
                    if len(fuller) == 1:
                        self.by_key[key] = fuller[0]
                        self._index_words(name, fuller[0])
        i = self.by_key.get(key)
        if i is None:
            i = len(self.entities)
            self.entities.append(Entity(name, typ, {name}, self.sent))
            self.by_key[key] = i
            self._index_words(name, i)
            if gold is not None:
                self.by_key[fold(name)] = i
            elif typ == "PER":
                for form in name_forms(name):  # later mentions and questions use these
                    self.entities[i].aliases.add(form)
                    self.by_key.setdefault(fold(form), i)
                    self._index_words(form, i)
        e = self.entities[i]
        e.votes[typ] = e.votes.get(typ, 0) + 1
        if gold is None and not e.said and e.votes[typ] > e.votes.get(e.type, 0):
            e.type = typ
        if gold is not None and len(name) > len(e.name) and kind == "named":
            e.name = name  # training: the fullest name
            self._index_words(name, i)
        e.aliases.add(name if kind == "named" else surface)
        e.mentions += 1
        if self.first is None and typ in ENTITY_TYPES:
            self.first = i
        return i, kind, name

    def _surname_of(self, tokens: list[Token], a: int) -> int | None:
        """The person a word alone (token a) that the tagger typed a place names again: the one person named in an earlier
        sentence whose name of several words ends with it ("Holt" after "Brock Holt"), no "of" in it ("… of Auchleuchries"
        ends with a place). None when the lexicons list the word as a place or a demonym, when the document named it as
        something else before, or when its sentence defines it ("Holt is a town in Missouri")."""
        word = tokens[a].text
        w = fold(word)
        if gz.lexicon_class(word) is not None or gz.country_of_demonym(word) is not None:
            return None
        if (k := self.by_key.get(w)) is not None and self.entities[k].type != "PER":
            return None
        got = [
            i
            for i in self.by_word.get(w, ())
            if (e := self.entities[i]).type == "PER"
            and e.first_sent < self.sent
            and len(nw := fold(e.name).split()) > 1
            and nw[-1] == w
            and "of" not in nw
        ]
        if len(got) != 1 or ((d := definition([t.text.lower() for t in tokens], a, a + 1)) is not None and d[0] != "PER"):
            return None
        return got[0]

    def known_spans(self, words: list[str], spans: list[tuple[int, int, str, int | None]]):
        """The tagged spans plus every untagged run of words that the document named before (a name the
        tagger found once is a name again; a person's surname alone too): one decision per document."""
        if not self.known:
            return spans
        taken = [False] * len(words)
        for a, b, _, _ in spans:
            for k in range(a, b):
                taken[k] = True
        out = list(spans)
        i = 0
        while i < len(words):
            if taken[i] or not words[i][:1].isupper():
                i += 1
                continue
            for n in range(min(6, len(words) - i), 0, -1):
                typ = self.known.get(tuple(words[i : i + n]))
                if typ is not None and not any(taken[i : i + n]) and (i + n == len(words) or not taken[i + n]):
                    out.append((i, i + n, typ, None))
                    i += n
                    break
            else:
                i += 1
        out.sort()
        return out

    def _learn(self, words: tuple[str, ...], typ: str) -> None:
        if len(self.known) < 5000:
            self.known.setdefault(words, typ)
            if typ == "PER" and len(words) > 1 and len(words[-1]) > 2 and words[-1][:1].isupper():
                self.known.setdefault(words[-1:], typ)

    def add_sentence(self, tokens: list[Token], spans: list[tuple[int, int, str, int | None]]) -> list[SentMention]:
        """The mentions of one sentence: its tagged spans (token a, token b, type, gold entity or None), then
        the pronouns and definite nominals resolved, then the topic entity as an implicit mention."""
        self.sent += 1
        out: list[SentMention] = []
        # other names ("also known as"): the token that ends the name each renames -> the other name's span, as tagged
        renamed = {k: (a, b, typ) for a, b, typ, gold in spans if gold is None and (k := _before_known_as(tokens, a)) >= 0}
        renaming = {a: k for k, (a, _, _) in renamed.items()}
        # each span as read (`_role_split`), with the span as tagged for the name it holds, its last part (a nationality
        # before a role is no other name of anything)
        parts: list[tuple[tuple[int, int, str, int | None], tuple[int, int]]] = []
        for span in spans:
            pieces = _role_split(tokens, span)
            parts.extend((part, (span[0], span[1]) if n == len(pieces) - 1 else (-1, -1)) for n, part in enumerate(pieces))
        last = [fold(tokens[b - 1].text) for (a, b, typ, _), _ in parts if typ == "PER"]
        kin = {w for w in last if last.count(w) > 1}  # surnames two names of this sentence share
        for (a, b, typ, gold), (a0, b0) in parts:
            if typ not in ENTITY_TYPES:
                continue
            if gold is None:
                # a name ends before a web or e-mail address the tagger ran it into ("Daniel Smith daniel.smith2@…")
                b = next((k for k in range(a, b) if web_address(tokens[k].text)), b)
                a = _without_opening(tokens, a, b, typ)
                if b == a:
                    continue
                # a name written in Latin letters keeps no word of another script the tagger ran into it ("一葉
                # Higuchi Ichiyō", from "Ichiyō Higuchi (樋口 一葉 Higuchi Ichiyō, …)")
                while b - a > 1 and _other_script(tokens[a].text):
                    a += 1
                while b - a > 1 and _other_script(tokens[b - 1].text):
                    b -= 1
                if typ != "PER" and _initials_and_surname(tokens, a, b):
                    typ = "PER"  # "N S Andres", "J. K. Rowling": no place or firm is written so
                if typ == "LOC" and b - a == 1 and (person := self._surname_of(tokens, a)) is not None:
                    # "Holt" after "Brock Holt": the person again, though "Holt" is a town's name too; joined to that person
                    # whatever other names hold the word ("Holt Collier")
                    typ = "PER"
                    self.by_key[fold(clean_name(tokens[a].text) or tokens[a].text)] = person
                if typ == "PER":
                    a = _without_title(tokens, a, b)
                    b = _without_weekday(tokens, a, _without_postnominals(tokens, a, b))
                    if b - a == 1 and b < len(tokens) and tokens[b].text in _KIN_GROUPS:
                        continue  # "the Bernoulli family": a family, not the person of that surname
            surface = _surface(tokens, a, b)
            if not any(c.isupper() for c in surface):
                continue  # no lower-case common nouns as entities
            if gold is None and not_a_name(tokens, a, b, surface):
                continue
            if gold is None:
                self._birth_name(tokens, a, surface, out)
                if a0 in renaming:
                    self._known_as(renaming[a0], surface, out)
                if b0 - 1 in renamed:
                    self._known_first(surface, _name_read(tokens, *renamed[b0 - 1]))
            i, kind, _ = self._entity(surface, typ, gold, extend=fold(tokens[b - 1].text) not in kin)
            if gold is None:
                self._learn(tuple(t.text for t in tokens[a:b]), typ)
            out.append(SentMention(a, b, i, kind, 1.0, surface, tokens[a].start, tokens[b - 1].end))
        if self.definitions and out and out[0].kind == "named":
            self._defined(tokens, out[0])
        named = out[:]
        taken = {(m.a, m.b) for m in out}
        prev = self.recent[-1] if self.recent else []
        covered = {k for m in named for k in range(m.a, m.b)}
        for k, tok in enumerate(tokens):
            if k in covered:
                continue
            w = tok.text.lower()
            if w not in _RESOLVABLE:
                continue
            got = None
            if w in _PRON_PER:
                got = self._resolve_person(k, named, prev, _GENDER[w])
            elif w in _PRON_IT:
                got = self._resolve_thing(k, named, prev)
            elif w in _NOMINALS and k > 0 and tokens[k - 1].text.lower() == "the":
                got = self._resolve_nominal(_NOMINALS[w], k, named, prev)
            if got is not None and (k, k + 1) not in taken:
                i, conf = got
                if conf >= _RESOLVE_FLOOR:
                    if w in _GENDER and conf >= 0.85 and not self.entities[i].gender:
                        self.entities[i].gender = _GENDER[w]
                    a = k - 1 if w in _NOMINALS else k
                    out.append(
                        SentMention(a, k + 1, i, "nominal" if w in _NOMINALS else "pron", conf, _surface(tokens, a, k + 1), tokens[a].start, tok.end)
                    )
        present = {m.entity for m in out}
        opens_pronoun = bool(tokens) and tokens[0].text.lower() in ("he", "she")
        # A sentence that opens with a he/she left unresolved is about someone the resolution could not tell: the
        # topic may be that person or not, so it is not read into the sentence unnamed ("Barack Obama met Angela
        # Merkel in Berlin. She was born in Hamburg." had given Obama Hamburg at 0.76 that way).
        unresolved = opens_pronoun and not any(m.a == 0 for m in out)
        if self.first is not None and self.first not in present and self.sent > 0 and not unresolved and not self._born_other(tokens, named):
            out.append(SentMention(-1, -1, self.first, "implicit", 1.0, ""))
        self.recent.append(sorted({m.entity for m in named}))
        del self.recent[:-2]
        opening = [m for m in out if m.a == 0 and m.kind in ("named", "pron") and self.entities[m.entity].type == "PER"]
        self.lead = None
        if opening and (opening[0].kind == "named" or opens_pronoun):
            b = opening[0].b  # "Alice Smith's sister is Nadia Jones. She …": the sister, not the one named first
            self.lead = opening[0].entity if b >= len(tokens) or tokens[b].text.lower() not in ("'s", "’s") else None
        return out

    def _born_other(self, tokens: list[Token], named: list[SentMention]) -> bool:
        """Whether the sentence opens with a name that shares no word with the topic's and tells its birth or death
        ("Higuchi Ichiyō was born in Tokyo", "Anna Weiss died in Graz"): the topic is then not read into it unnamed,
        even when the tagger typed that name as no person (the topic had been given Tokyo). A name sharing a word
        is the topic's, written another way ("Desmarais was born in Sudbury" on Paul Desmarais Jr's page)."""
        m = next((m for m in named if m.a == 0 and m.kind == "named"), None)
        if m is None or self.first is None:
            return False
        after = [t.text.lower() for t in tokens[m.b : m.b + 2]]
        if not (after[:1] == ["died"] or after in (["was", "born"], ["were", "born"])):
            return False
        return not set(fold(m.surface).split()) & set(fold(self.entities[self.first].name).split())

    def _defined(self, tokens: list[Token], m: SentMention) -> None:
        """The type a sentence opening with the mention m gives its entity by defining it (`definition`): the
        first definition of the entity's own name decides, and later tags do not outvote it. Not a definition under
        another of its names: "Ford is an automobile manufacturer" after "Henry Ford was an industrialist" is the
        firm, not the man the surname joined."""
        e = self.entities[m.entity]
        if e.said or _name_key(m.surface) != fold(e.name):
            return
        got = definition([t.text.lower() for t in tokens], m.a, m.b)
        if got:
            e.type = e.said = got[0]

    def _birth_name(self, tokens: list[Token], a: int, surface: str, before: list[SentMention]) -> None:
        """A name given as a person's birth name ("Grace Hopper (née Murray; …)", "(born Norma Jeane
        Mortenson)") is that person's other name, not another person: it joins the person named last before
        it in the sentence."""
        prev = tokens[a - 1].text.lower() if a > 0 else ""
        if not (prev in ("née", "nee") or (prev == "born" and a > 1 and tokens[a - 2].text == "(")):
            return
        person = next((m.entity for m in reversed(before) if m.kind == "named" and self.entities[m.entity].type == "PER"), None)
        key = _name_key(surface)
        if person is not None and key not in self.by_key:
            self.by_key[key] = person

    def _known_as(self, k: int, surface: str, before: list[SentMention]) -> None:
        """A name given as another name of what was named just before ("The Winnebago War, also known as the
        Winnebago Uprising", "Kitigan Zibi (also known as River Desert)", "Jenna Nicole Mourey (born …), better
        known by her pseudonym Jenna Marbles") is that entity's other name, not another entity: it joins the
        named mention that ends at token `k`, where the phrase begins (`_before_known_as`)."""
        prev = next((m for m in reversed(before) if m.kind == "named" and m.b - 1 == k), None)
        key = _name_key(surface)
        if prev is not None and key not in self.by_key:
            self.by_key[key] = prev.entity
            words = key.split()
            if self.entities[prev.entity].type == "PER" and len(words) > 1 and len(words[-1]) > 2:
                self.by_key.setdefault(words[-1], prev.entity)  # the other name's surname alone, later: the same person

    def _known_first(self, surface: str, other: str) -> None:
        """A name renamed by an other name the document gave before (a page titled "Jenna Marbles" opening with
        "Jenna Nicole Mourey (…), better known by her pseudonym Jenna Marbles"): the entity of that other name."""
        key, okey = _name_key(surface), _name_key(other)
        if key not in self.by_key and okey in self.by_key:
            self.by_key[key] = self.by_key[okey]

    # Confidences below were set against GUM's chains (gum.py; docs/extraction.md): a pronoun resolves only
    # when one antecedent is plainly the salient one.
    def _resolve_person(self, k: int, named: list[SentMention], prev: list[int], gender: str) -> tuple[int, float] | None:
        ents = self.entities

        def fits(i: int) -> bool:
            return ents[i].type == "PER" and ents[i].gender in ("", gender)

        before = [m.entity for m in named if m.b <= k and fits(m.entity)]
        window = set(before) | {i for i in prev if fits(i)}
        lead = self.lead
        if k == 0 and lead is not None and fits(lead) and (ents[lead].gender == gender or window <= {lead}):
            # a sentence opening with he/she goes on about the person the last one opened with, unless another
            # person of that sentence fits as well ("Barack Obama met Angela Merkel in Berlin. She …")
            return lead, 0.85
        topic = self.first if self.first is not None and fits(self.first) else None
        if topic is None and self.article is not None and fits(self.article):
            topic = self.article  # the section is about no one (or is not about a person): the article's person
        if topic is not None:
            most = max((e.mentions for e in ents if e.type == "PER"), default=0)
            if ents[topic].mentions < most:
                topic = None  # another person is talked about more: the first one is not plainly the topic
        if len(window) == 1:
            (only,) = window
            return only, 0.9 if (topic is None or only == topic) else 0.6
        if not window:
            return (topic, 0.85) if topic is not None else None
        return None  # two or more people in reach: ambiguous

    def _resolve_thing(self, k: int, named: list[SentMention], prev: list[int]) -> tuple[int, float] | None:
        topic = self.first
        if topic is None or self.entities[topic].type == "PER" or k != 0:
            return None  # only a sentence-opening "It"/"Its" about a non-person topic
        if any(self.entities[i].type != "PER" and i != topic for i in prev):
            return topic, 0.6  # another thing was named just before
        return topic, 0.8

    def _resolve_nominal(self, typ: str, k: int, named: list[SentMention], prev: list[int]) -> tuple[int, float] | None:
        topic = self.first
        if any(m.b <= k and self.entities[m.entity].type == typ for m in named):
            return None
        cands = [i for i in prev if self.entities[i].type == typ]
        if topic is not None and self.entities[topic].type == typ and (not cands or cands == [topic]):
            return topic, 0.8
        if len(cands) == 1:
            return cands[0], 0.6
        return None


# words after a nationality word that make it the language ("performed in German by …", "an inscription in
# German which …"), not a country's adjective ("in German territory")
_AFTER_LANGUAGE = frozenset("by which that and or but with as at for on to of in from is was were are while when where who".split())
_SCORE = re.compile(r"(?<!\w)\d+\s*[–-]\s*\d+(?!\w)")  # "1 – 0", not "Core i9 - 9980XE"
_JUNK_START = frozenset("-–—/\\|(:;,")  # not "." (".NET Framework") nor "@", "#"


def not_a_name(tokens: list[Token], a: int, b: int, surface: str) -> bool:
    """Whether a span the tagger marked (tokens a..b, written `surface`) names nothing a fact can be about: a
    people or a faith's followers ("Americans", "Muslims": gz.group_noun), a nationality word standing for its
    language (after "in", "into" or "from", before a function word or the sentence's end), a span that opens
    with a dash or a bracket ("-VOR-zha", from a pronunciation guide) or holds a match score ("Sweden 1 – 0
    Korea Republic"). Inference only: training reads the corpora's own mentions."""
    if surface[:1] in _JUNK_START or _SCORE.search(surface):
        return True
    name = clean_name(surface) or surface
    if gz.group_noun(name):
        return True
    if b - a == 1 and a > 0 and gz.country_of_demonym(name) and tokens[a - 1].text.lower() in ("in", "into", "from"):
        after = tokens[b].text if b < len(tokens) else ""
        return not after[:1].isalnum() or after.lower() in _AFTER_LANGUAGE
    return False


# honours and degrees written after a person's name ("Daniel Bernoulli FRS", "Sir John Smith KCB OBE"): not the name
_POSTNOMINALS = frozenset(
    "FRS FRSE FBA FREng FMedSci FRSC FAA FRSNZ FRSA FSA FLS FGS FRAS FRCP FRCS OBE MBE CBE KBE DBE GBE CB KCB GCB CMG "
    "KCMG GCMG CVO LVO MVO KCVO GCVO OM CH KG KT QC KC MP MEP MSP PhD DPhil DSO VC GC AO AC ONZ Bt Bart".split()
)
_WEEKDAYS = frozenset("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())
# a question's first word, capital only for opening it ("Do museum labels have an impact …?"): no name alone
_ASKING = frozenset("Do Does Did Is Are Was Were Has Have Had Can Could Would Should Shall Must How Why".split())
# a sentence's first word, capital only for opening it, that the tagger runs into the name after it ("Unlike Hemingway",
# "Similarly Amdír"): conjunctions and adverbs that open no name
_OPENERS = frozenset(
    "Unlike Similarly However Meanwhile Moreover Furthermore Nevertheless Nonetheless Although Though Whilst While "
    "Because Despite According Thus Hence Therefore Additionally".split()
)
# the same for words that also open names ("Under Armour", "In Flames", "Near East University", "Over Haddon"): only
# for a person's name that ends at a comma or a possessive ("In Bukowski's novels", "Among Smith, Jones and …")
_OPENERS_BEFORE_COMMA = frozenset(
    "In On At By For From With Within Without After Before During Since Until When If As Most Many Some Several Later "
    "Also Then Like Between Among Along Across Through Throughout Following Under Over Near".split()
)
_QUOTES = frozenset("\"“”'‘’«»")
# a surname before one of these names a family or a house, not one person
_KIN_GROUPS = frozenset("family families brothers sisters dynasty clan house".split())
# "also known as", "better known by her pseudonym": read backwards from the other name (`_before_known_as`)
_KNOWN_AS_ADVERBS = frozenset("also better more most commonly popularly professionally formerly locally simply sometimes often usually".split())
_KNOWN_BY = frozenset("pseudonym nickname name stage pen ring".split())
_KNOWN_AS_REACH = 48  # tokens read back from an other name: a birth-date bracket and the phrase fit


def _other_script(word: str) -> bool:
    """Whether a word has letters and none of them Latin ("一葉", "Москва"; not "Ichiyō", "Łódź")."""
    letters = [ch for ch in word if ch.isalpha()]
    return bool(letters) and not any(latin(ch) for ch in letters)


def _initials_and_surname(tokens: list[Token], a: int, b: int) -> bool:
    """Whether tokens a..b are a person's initials and a surname ("N S Andres", "J. K. Rowling", "J. Smith"): each
    but the last one capital letter ("A", "I", "O" are words: "A Coruña"), two of them or each with its full stop
    (one bare letter names a unit: "X Corps", "B Division"), the last a capitalised word.

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> names = ["N S Andres", "J. K. Rowling", "J. Smith", "A Coruña", "U.S. Army", "X Corps", "B Division"]
    >>> [_initials_and_surname(t, 0, len(t)) for t in map(tokenize, names)]
    [True, True, True, False, False, False, False]
    """
    texts = [t.text for t in tokens[a:b]]
    dotted = [w + "." if nxt == "." else w for w, nxt in zip(texts, texts[1:] + [""]) if w != "."]
    *initials, last = dotted or [""]
    return (
        bool(initials)
        and all(len(w.rstrip(".")) == 1 and w[:1].isupper() and w[:1] not in "AIO" for w in initials)
        and (len(initials) > 1 or initials[0].endswith("."))
        and len(last) > 1
        and last[:1].isupper()
        and last[1:].islower()
    )


def _without_opening(tokens: list[Token], a: int, b: int, typ: str) -> int:
    """The start of a name after words of the sentence the tagger ran into it: the pronoun "I" and the lower-case words
    after it up to a name's particle or a word with a capital ("… when I entered Trinity College", "I met van Gogh", "I
    joined eBay"), a question's first word alone ("Do museum labels …?"; not "Can was arrested in Istanbul", Can a
    given name), or a conjunction or an adverb that opens the sentence ("Unlike Hemingway"; a preposition only before a
    person's name that ends at a comma or a possessive: "In Bukowski's novels", not "Under Armour's shoes"); `b`
    (nothing left) when the span is only those. A title keeps its words: between quotes ("\"I Got a Woman\""), or what the
    tagger typed a work or an event (MISC: the Italian article of "I due Foscari").

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> t = tokenize("when I entered Trinity College")
    >>> _without_opening(t, 1, 5, "ORG"), _without_opening(tokenize("I met van Gogh"), 0, 4, "PER")
    (3, 2)
    >>> _without_opening(tokenize("I re-entered eBay"), 0, 3, "ORG"), _without_opening(tokenize("I due Foscari"), 0, 3, "MISC")
    (2, 0)
    >>> _without_opening(tokenize("Do museum labels help?"), 0, 1, "PER"), _without_opening(tokenize("Do labels help"), 0, 1, "PER")
    (1, 0)
    >>> _without_opening(tokenize('"I Got a Woman" is a song'), 1, 5, "PER"), _without_opening(tokenize('"No," I told Ann'), 4, 7, "PER")
    (1, 6)
    >>> _without_opening(tokenize("Unlike Hemingway, he wrote"), 0, 2, "LOC"), _without_opening(tokenize("In Time"), 0, 2, "MISC")
    (1, 0)
    >>> _without_opening(tokenize("In Bukowski's novels"), 0, 2, "PER"), _without_opening(tokenize("Under Armour's shoes"), 0, 2, "ORG")
    (1, 0)
    """
    if typ == "MISC" or (0 < a and b < len(tokens) and tokens[a - 1].text in _QUOTES and tokens[b].text in _QUOTES):
        return a
    after = tokens[a + 1].text if a + 1 < len(tokens) else ""
    if a == 0 and b == 1 and tokens[0].text in _ASKING and after[:1].islower() and tokens[-1].text == "?":
        return b
    if a == 0 and b > 1 and after[:1].isupper():
        if tokens[0].text in _OPENERS:
            return 1
        if typ == "PER" and tokens[0].text in _OPENERS_BEFORE_COMMA and b < len(tokens) and tokens[b].text in (",", "'s", "’s"):
            return 1
    if tokens[a].text == "I" and (b - a == 1 or after[:1].islower()):
        k = a + 1
        while k < b and tokens[k].text.islower() and tokens[k].text not in NAME_PARTICLES:
            k += 1
        return k
    return a


# a person's role or rank written before the name, which the tagger runs into it ("General Pervez Musharraf",
# "Vice-President Joe Biden", "Staff Sergeant Ty Carter", "Deputy Prime Minister Nick Clegg"; `_without_title`). Not the
# titles that are given names too (`_REGNAL_TITLES`)
_TITLES = frozenset(
    "Pope Pharaoh Emperor Empress Tsar Czar Tsarina Caliph Sir Dame Lord Baron Baroness Countess Duchess General Admiral "
    "Colonel Captain Lieutenant Sergeant Commander Marshal Brigadier Corporal Governor President Vice-President "
    "Chancellor Premier Minister Senator Congressman Congresswoman Mayor Judge Justice Bishop Archbishop Cardinal "
    "Reverend Rabbi Imam Doctor Professor Ambassador Secretary Chairman Chairwoman Spokesman Spokeswoman Officer "
    "Advisor Adviser Dr Prof Mr Mrs Ms".split()
)
# abbreviated titles, titles only with their full stop ("Gen. David Petraeus", "Sen. Bernie Sanders"; Amartya Sen)
_DOTTED_TITLES = frozenset("Gen Sen Rep Rev Col Capt Lt Sgt Gov Maj Adm Cpl Hon".split())
# titles that are given names too ("King Camp Gillette", "Prince Rogers Nelson", "Lady Bird Johnson", "Shah Rukh
# Khan"): a title only before a ruler's name and number ("Queen Elizabeth II", "King Louis XIV of France"; not "Prince
# V. Jones", an initial). "Earl" is no ruler's ("Earl Thomas III")
_REGNAL_TITLES = frozenset("King Queen Prince Princess Duke Lady Sultan Emir Sheikh Shah".split())
_REGNAL_NUMBER = re.compile(r"[IVXL]+")
# nouns of a person's role before a name ("Eskom chairperson Ben Ngubane", "Hungarian footballer Imre Puskás"): the
# name after one is a person's, whatever type the tagger gave the whole
_PERSON_ROLES = frozenset(w for w, typ in _KIND_NOUNS.items() if typ == "PER") | frozenset(
    "recipient chairperson chairman chairwoman founder cofounder co-founder candidate president minister secretary "
    "spokesman spokeswoman spokesperson nominee laureate manager coach captain striker midfielder defender "
    "goalkeeper quarterback pitcher".split()
)
# the lower-case words after which a tagged span's name begins (`_after_role`): a person's role, a role of anyone or
# anything ("NATO member Turkey", "market leader Samsung"), a kind of thing ("Zhang Yimou film Coming Home", "Scottish
# Second Division side Albion Rovers"), a point of the compass ("southeastern United States"). Only these: a name's
# own lower-case words are of every language ("Ústí nad Labem", "Museum für Naturkunde", "Teatro alla Scala")
_SPLIT_WORDS = (
    _PERSON_ROLES
    | frozenset(_KIND_NOUNS)
    | frozenset(_NOMINALS)
    | frozenset(
        "member leader winner owner head chief player side edition "
        "northern southern eastern western northeastern northwestern southeastern southwestern".split()
    )
)


def _after_role(tokens: list[Token], a: int, b: int) -> int:
    """The start of a name after the last word of the sentence the tagger ran into the span a..b that names a role,
    a kind or a direction (`_SPLIT_WORDS`) and is followed by a word with a capital: "Brownlow Medal recipient Jim
    Stynes", "Zhang Yimou film Coming Home"; `a` when there is none.

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> t = tokenize("Eskom chairperson Ben Ngubane")
    >>> _after_role(t, 0, 4), _after_role(tokenize("Walking Far from Home"), 0, 4), _after_role(tokenize("Ústí nad Labem"), 0, 3)
    (2, 0, 0)
    >>> _after_role(tokenize("Microsoft co - founder Bill Gates"), 0, 6)  # Re-DocRED spaces its hyphens
    4
    """
    for k in range(b - 2, a - 1, -1):
        if tokens[k].text in _SPLIT_WORDS and tokens[k + 1].text[:1].isupper():
            return k + 1
    return a


def _role_split(tokens: list[Token], span: tuple[int, int, str, int | None]) -> list[tuple[int, int, str, int | None]]:
    """A tagged span without the sentence's words the tagger ran into it (`_without_opening`, `_after_role`): the
    name after a role's, a kind's or a direction's word, a person's after a person's role, and before it the
    nationality, the country or the region that opens the span as a mention of its own: "Hungarian footballer Imre
    Puskás" is Hungary and the person Imre Puskás, "Florida group The Royal Guardsmen" Florida and the band; "Eskom
    chairperson Ben Ngubane" the person (a firm or a town before the role is left out: "Barcelona coach Pep Guardiola"
    names the club, not the city). A title between quotes stays whole, and
    so do the corpus's own spans (a gold entity) and spans of no entity type (a date, a number)."""
    a, b, typ, gold = span
    if gold is not None or typ not in ENTITY_TYPES:
        return [span]
    a = _without_opening(tokens, a, b, typ)
    if b - a < 2:
        return [(a, b, typ, gold)] if b > a else []
    k = _after_role(tokens, a, b)
    if k == a or (0 < a and b < len(tokens) and tokens[a - 1].text in _QUOTES and tokens[b].text in _QUOTES):
        return [(a, b, typ, gold)]
    out: list[tuple[int, int, str, int | None]] = []
    before = _surface(tokens, a, k - 1) if k - 1 > a else ""
    if before and (gz.country_of_demonym(before) or gz.lexicon_class(before) in ("Country", "Region") or canonical_country(before)):
        out.append((a, k - 1, "LOC", None))
    out.append((k, b, "PER" if tokens[k - 1].text in _PERSON_ROLES else typ, None))
    return out


def _name_read(tokens: list[Token], a: int, b: int, typ: str) -> str:
    """The name a tagged span gives, as `DocState.add_sentence` reads it: the last part `_role_split` leaves, without a
    person's title ("Sir Tom Jones" is "Tom Jones", "Welsh singer Tom Jones" too)."""
    got = _role_split(tokens, (a, b, typ, None))
    if not got:
        return _surface(tokens, a, b)
    a, b, typ, _ = got[-1]
    return _surface(tokens, _without_title(tokens, a, b) if typ == "PER" else a, b)


def _without_title(tokens: list[Token], a: int, b: int) -> int:
    """The start of a person's name after the titles or ranks that open it: the last listed title of the span's opening
    run of capitalised words ("General Pervez Musharraf", "Staff Sergeant Ty Carter", "Deputy Prime Minister Nick
    Clegg", "Lieutenant General Sir John Moore", "Gen. David Petraeus", "Queen Elizabeth II"), when two words of name
    follow it ("Lord Palmerston", "Lady Gaga" and "Dr. Dre" stay whole, and so do "Shah Rukh Khan", "Lady Bird Johnson"
    and "Earl Thomas III": those titles are given names too, and a title only before a ruler's number).

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> t = tokenize("Petty Officer John Leake")
    >>> _without_title(t, 0, 4), _without_title(tokenize("Lady Gaga"), 0, 2), _without_title(tokenize("Joe Biden"), 0, 2)
    (2, 0, 0)
    >>> _without_title(tokenize("Dr. Ada Lovelace"), 0, 4), _without_title(tokenize("Dr. Dre"), 0, 3)
    (2, 0)
    >>> _without_title(tokenize("Lieutenant General Sir John Moore"), 0, 5), _without_title(tokenize("Shah Rukh Khan"), 0, 3)
    (3, 0)
    >>> _without_title(tokenize("Queen Elizabeth II"), 0, 3), _without_title(tokenize("Prince V. Jones"), 0, 4)
    (1, 0)
    >>> _without_title(tokenize("Gen. David Petraeus"), 0, 4), _without_title(tokenize("Amartya Sen Smith"), 0, 3)
    (2, 0)
    """
    start = k = a
    while k < b and tokens[k].text[:1].isupper():
        w = tokens[k].text
        j = k + 1 + (k + 1 < b and tokens[k + 1].text == ".")  # an abbreviation's full stop with it
        dotted = j > k + 1
        regnal = (
            w in _REGNAL_TITLES
            and j + 1 < b
            and _REGNAL_NUMBER.fullmatch(tokens[j + 1].text) is not None
            and (j + 2 >= b or tokens[j + 2].text != ".")
        )
        if (w in _TITLES or (dotted and w in _DOTTED_TITLES) or regnal) and b - j >= 2 and tokens[j].text[:1].isupper():
            start = j
        k = j
    return start


def _without_postnominals(tokens: list[Token], a: int, b: int) -> int:
    """The end of a person's name before the honours written after it (two words of name are kept at least)."""
    while b - a > 2 and tokens[b - 1].text in _POSTNOMINALS:
        b -= 1
    return b


def _without_weekday(tokens: list[Token], a: int, b: int) -> int:
    """The end of a person's name before a date's day of the week the tagger ran into it ("Aner Shalev" over the
    dateline "Wednesday, September 19, 2007"); not a name's own last word ("William Ashley Sunday was …")."""
    if b - a > 2 and tokens[b - 1].text in _WEEKDAYS and b < len(tokens) and tokens[b].text == ",":
        return b - 1
    return b


def _before_known_as(tokens: list[Token], a: int) -> int:
    """The token that ends the name a "known as" phrase before token `a` renames, or -1: reading back from `a`, an
    opening quote or "the", then "as" (or "by her pseudonym", "by his stage name"), "known", adverbs ("also",
    "better"), an opening bracket or a comma, and closed brackets ("(born 1986)"). Only the few dozen tokens
    before `a` are read, so that a sentence of many names costs each name the same."""
    if not any(t.text == "known" for t in tokens[max(0, a - 6) : a]):
        return -1
    w0 = max(0, a - _KNOWN_AS_REACH)
    low = [t.text.lower() for t in tokens[w0:a]]

    def at(j: int) -> str:
        return low[j - w0] if j >= w0 else ""

    k = a - 1
    if at(k) in ('"', "“", "'", "‘"):
        k -= 1
    if at(k) == "the":
        k -= 1
    if at(k) == "as":
        k -= 1
    else:
        j = k
        while at(k) in _KNOWN_BY:
            k -= 1
        if k == j or not (at(k) in ("her", "his", "its", "their") and at(k - 1) == "by"):
            return -1
        k -= 2
    if at(k) != "known":
        return -1
    k -= 1
    while at(k) in _KNOWN_AS_ADVERBS:
        k -= 1
    if at(k) in (",", "("):
        k -= 1
    while at(k) == ")":  # a closed bracket between the name and the phrase
        depth = 0
        while k >= w0:
            depth += {")": 1, "(": -1}.get(at(k), 0)
            k -= 1
            if depth == 0:
                break
        if depth:
            return -1
        if at(k) == ",":
            k -= 1
    return k if k >= w0 else -1


def _name_key(surface: str) -> str:
    """The key `DocState.by_key` knows a written name by: its clean form, folded."""
    return fold(clean_name(surface) or surface)


def _surface(tokens: list[Token], a: int, b: int) -> str:
    """The text of tokens a..b as written (the document's own spacing is not known here: one space)."""
    parts = [tokens[a].text]
    for j in range(a + 1, b):
        parts.append(("" if tokens[j].start == tokens[j - 1].end else " ") + tokens[j].text)
    return "".join(parts)


# ------------------------------------------------------------------ pair features


def _bucket(n: int) -> str:
    return str(n) if n < 4 else ("4-5" if n < 6 else ("6-9" if n < 10 else "10+"))


_BUCKET_STARTS = (1, 2, 3, 4, 6, 10)  # the least distance of each of _bucket's buckets from 1 on


def _sentence_words(words: list[str], side: str, memo: SentenceMemo | None) -> list[str]:
    """The implicit mention's bag of the sentence's words, built once per sentence and side when the caller
    keeps a `memo` for the sentence (every implicit pair of a sentence has the same). Sorted: the same order,
    so the same float sums, in every process."""
    got = memo.bags.get(side) if memo is not None else None
    if got is None:
        got = [f"imp{side}|sw={w}" for w in sorted(set(words))]
        if memo is not None:
            memo.bags[side] = got
    return got


def pair_features(
    words: list[str],
    h: SentMention,
    t: SentMention,
    ht: str,
    tt: str,
    h_topic: bool,
    t_topic: bool,
    mentions: list[SentMention],
    sent_index: int,
    t_class: str | None,
    h_class: str | None,
    memo: SentenceMemo | None = None,
) -> list[str]:
    """Features of the ordered pair (head h, tail t) in a sentence of lower-cased `words` (`memo`: what the caller
    keeps per sentence, made once for all its pairs)."""
    hk, tk = h.kind, t.kind
    tp = f"{ht}|{tt}"
    f = [f"tp={tp}", f"hk={hk}", f"tk={tk}", f"hk={hk}|tk={tk}|tp={tp}"]
    if h_topic:
        f.append("h_topic")
    if t_topic:
        f.append("t_topic")
    if h_class:
        f.append(f"hc={h_class}")
    if t_class:
        f.append(f"tc={t_class}|{ht}")
    f.append("s0" if sent_index == 0 else "s1+")
    if hk == "named" and h.a <= 1 and t.a > h.b:
        defined = definition_of(words, h, memo)
        if defined and _in_definition(words, defined[1], t.a, mentions):
            f.append(f"def={defined[0]}|{tt}")  # "Goodooga is a village in … Brewarrina Shire": where it lies
    if hk == "implicit" or tk == "implicit":
        m, side = (t, "h") if hk == "implicit" else (h, "t")
        ma = m.a
        if m.b > ma:
            f.append(f"imp{side}|mw={words[m.b - 1]}")
        for d in (1, 2, 3):
            if ma - d >= 0:
                f.append(f"imp{side}|pre{d}={words[ma - d]}")
        if ma >= 2:
            f.append(f"imp{side}|pre2={words[ma - 2]}_{words[ma - 1]}")
        if m.b < len(words):
            f.append(f"imp{side}|post={words[m.b]}")
        f.extend(_sentence_words(words, side, memo))
        return f
    # the mentions' own words: the last, an English name's head ("Stephenville High School", "Ohio River"),
    # and the first of a longer name ("Lake Erie", "University of Michigan"), which say what a name the
    # tagger typed alike is: a school, a river, a party (docs/extraction.md, "Mention words, word pairs …")
    f.append(f"hw={words[h.b - 1]}")
    f.append(f"tw={words[t.b - 1]}")
    if h.b - h.a > 1:
        f.append(f"hf={words[h.a]}")
    if t.b - t.a > 1:
        f.append(f"tf={words[t.a]}")
    first, second = (h, t) if h.a <= t.a else (t, h)
    order = "ht" if first is h else "th"
    fb, sa = first.b, second.a
    gap = max(0, sa - fb)
    between = words[fb:sa]
    gb = _bucket(gap)
    f.append(f"ord={order}")
    f.append(f"gap={gb}")
    f.append(f"ord={order}|gap={gb}|tp={tp}")
    inside = 0
    for m in mentions:
        if fb <= m.a and m.b <= sa and m.kind != "implicit":
            inside += 1
    f.append(f"ents_between={_bucket(inside)}")
    f.extend([f"bw={w}|{order}" for w in sorted(set(between))])
    if len(between) > 1:  # and their pairs in order: "born in" is not "in … born"
        f.extend(sorted({f"bb={a}_{b}|{order}" for a, b in zip(between, between[1:])}))
    if gap <= 6:
        bs = " ".join(between)
        f.append(f"bs={bs}|{order}")
        f.append(f"bs={bs}|{order}|{tp}")
    if between:
        f.append(f"bf={between[0]}|{order}")
        f.append(f"bl={between[-1]}|{order}")
    n = len(words)
    fa, sb = first.a, second.b
    for d in (1, 2):
        if fa - d >= 0:
            f.append(f"pre{d}={words[fa - d]}")
        if sb + d - 1 < n:
            f.append(f"post{d}={words[sb + d - 1]}")
    if fa >= 2:
        f.append(f"pre2={words[fa - 2]}_{words[fa - 1]}")
    if t.a >= 2:
        f.append(f"tpre2={words[t.a - 2]}_{words[t.a - 1]}")
    if t.a >= 1:
        f.append(f"tpre1={words[t.a - 1]}")
    if h.a >= 1:
        f.append(f"hpre1={words[h.a - 1]}")
    return f


def candidate_pairs(
    mentions: list[SentMention], only: dict[tuple[int, int], int] | None = None, limit: int | None = None
) -> list[tuple[SentMention, SentMention]]:
    """Every ordered pair of distinct entities in a sentence, each by its closest pair of mentions
    (a named mention before a resolved one, an implicit one last), in the order of their entities.
    Two implicit mentions never pair. `only`: mentions (by token span) that pair with one entity alone
    (`possessives`). `limit`: when there are more pairs, the `limit` closest (a list of hundreds of names), in
    the order of their distance, then of their entities. A sentence of many mentions is paired with numpy
    (`_pairs_at_once`): the same pairs in the same order, without a Python loop over every two mentions."""
    if len(mentions) > _PAIRS_AT_ONCE:
        return _pairs_at_once(mentions, only, limit)
    best: dict[tuple[int, int], tuple[tuple, SentMention, SentMention]] = {}
    for h in mentions:
        for t in mentions:
            if h.entity == t.entity or (h.kind == "implicit" and t.kind == "implicit"):
                continue
            if only and (only.get((h.a, h.b), t.entity) != t.entity or only.get((t.a, t.b), h.entity) != h.entity):
                continue  # a possessive before a named person: only that person's relation to the possessor
            if h.kind != "implicit" and t.kind != "implicit" and h.a < t.b and t.a < h.b:
                continue  # overlapping spans
            dist = 0 if "implicit" in (h.kind, t.kind) else abs(h.a - t.a)
            key = (_RANK[h.kind] + _RANK[t.kind], dist)
            k = (h.entity, t.entity)
            if k not in best or key < best[k][0]:
                best[k] = (key, h, t)
    chosen = [best[k] for k in sorted(best)]
    if limit is not None and len(chosen) > limit:
        chosen = sorted(chosen, key=lambda c: (c[0][1], c[1].entity, c[2].entity))[:limit]
    return [(h, t) for _, h, t in chosen]


_RANK = {"named": 0, "demonym": 0, "nominal": 1, "pron": 1, "implicit": 3}
# Mentions in a sentence from which `candidate_pairs` pairs them with numpy: prose has at most about 20
# (Re-DocRED's longest sentence, 22); a list of names run into one "sentence" has hundreds, and the loop over
# every two of them was most of the time such text took.
_PAIRS_AT_ONCE = 24


def _pairs_at_once(mentions: list[SentMention], only: dict[tuple[int, int], int] | None, limit: int | None) -> list[tuple[SentMention, SentMention]]:
    """`candidate_pairs` over arrays: every two mentions at once, each entity pair's best by (rank, distance,
    then the first in reading order, as the loop keeps the first of equals)."""
    m = len(mentions)
    ent = np.array([x.entity for x in mentions], dtype=np.int64)
    a = np.array([x.a for x in mentions], dtype=np.int64)
    b = np.array([x.b for x in mentions], dtype=np.int64)
    rank = np.array([_RANK[x.kind] for x in mentions], dtype=np.int64)
    implicit = np.array([x.kind == "implicit" for x in mentions])
    alone = np.array([only.get((x.a, x.b), -1) if only else -1 for x in mentions], dtype=np.int64)
    i, j = (g.ravel() for g in np.meshgrid(np.arange(m), np.arange(m), indexing="ij"))
    either = implicit[i] | implicit[j]
    ok = (ent[i] != ent[j]) & ~(implicit[i] & implicit[j])
    ok &= ~(((alone[i] >= 0) & (alone[i] != ent[j])) | ((alone[j] >= 0) & (alone[j] != ent[i])))
    ok &= either | ~((a[i] < b[j]) & (a[j] < b[i]))  # overlapping spans
    i, j, either = i[ok], j[ok], either[ok]
    dist = np.where(either, 0, np.abs(a[i] - a[j]))
    rsum = rank[i] + rank[j]
    order = np.lexsort((j, i, dist, rsum, ent[j], ent[i]))  # by entity pair, then the loop's preference
    eh, et = ent[i][order], ent[j][order]
    first = order[np.r_[True, (eh[1:] != eh[:-1]) | (et[1:] != et[:-1])]] if len(order) else order
    if limit is not None and len(first) > limit:
        first = first[np.lexsort((ent[j][first], ent[i][first], dist[first]))][:limit]
    return [(mentions[h], mentions[t]) for h, t in zip(i[first].tolist(), j[first].tolist())]


_POSSESSIVE = frozenset({"his", "her", "hers", "its"})  # the possessives DocState resolves


def possessives(tokens: list[Token], mentions: list[SentMention], types: Callable[[int], str]) -> dict[tuple[int, int], int]:
    """Resolved possessives whose noun is a named person ("Her colleague Tom Becker was born in Hamburg",
    "his wife, Anna Weiss, …"): the person is what the sentence goes on about, so the possessor pairs with that
    person only (a colleague, a wife) and not with the rest of the sentence ("Maria Lopez born_in Hamburg" was
    stored at 0.76). Read as: the possessive, one lower-case word, an optional comma, the named person (two words
    would take in a verb: "his teachers included Sabine Lacoraet").
    Returns {possessive's token span: the person's entity}; `types` gives an entity's tagger type."""
    out: dict[tuple[int, int], int] = {}
    named = {m.a: m for m in mentions if m.kind == "named" and types(m.entity) == "PER"}
    for m in mentions:
        if m.kind != "pron" or tokens[m.a].text.lower() not in _POSSESSIVE:
            continue
        k = m.b + 1
        if k > len(tokens) or not tokens[m.b].text[:1].islower():
            continue
        if k < len(tokens) and tokens[k].text == ",":
            k += 1
        n = named.get(k)
        if n is not None and n.entity != m.entity:
            out[(m.a, m.b)] = n.entity
    return out


# ------------------------------------------------------------------ pairs across sentences

_REAL_TYPES = frozenset(ENTITY_TYPES)
_NAMED = frozenset({"named", "demonym"})  # a pair across sentences is read from names only: the passage quotes both
# Across sentences only a place is a tail: most training pairs that hold a property end in one, and no other
# kind of tail reached the floor out of fold, so every other pair cost time for nothing (docs/extraction.md)
CROSS_TAIL = "LOC"


@dataclass(frozen=True, slots=True)
class CrossPair:
    """Two entities that share no sentence, by their closest mentions (sentence positions in the list given)."""

    h: SentMention
    t: SentMention
    h_sent: int
    t_sent: int


@dataclass(frozen=True, slots=True)
class CrossCandidates:
    """The pairs `cross_pairs` picks, as arrays over the named mentions they are read from: run time scores
    them as arrays (`CrossContext.components`) and makes a CrossPair only for a pair it keeps."""

    mentions: list[SentMention]  # the named mentions considered, in reading order
    sent: np.ndarray  # each mention's sentence (its position in the list of sentences given)
    head: np.ndarray  # per pair, closest first: its head's mention (an index into `mentions`)
    tail: np.ndarray

    def __len__(self) -> int:
        return len(self.head)

    def pair(self, k: int) -> CrossPair:
        i, j = int(self.head[k]), int(self.tail[k])
        return CrossPair(self.mentions[i], self.mentions[j], int(self.sent[i]), int(self.sent[j]))


def cross_mentions(state: DocState, sents: list[list[SentMention]]) -> tuple[list[SentMention], list[int]]:
    """The mentions pairs across sentences are read from (named, of a real type, not the topic), in reading
    order, with their sentences (positions in `sents`)."""
    ents = state.entities
    ms: list[SentMention] = []
    ss: list[int] = []
    for si, row in enumerate(sents):
        for m in row:
            if m.kind in _NAMED and ents[m.entity].type in _REAL_TYPES and m.entity != state.first:
                ms.append(m)
                ss.append(si)
    return ms, ss


def cross_candidates(state: DocState, sents: list[list[SentMention]], together: set[tuple[int, int]], limit: int = 400) -> CrossCandidates:
    """The ordered entity pairs of `sents` (consecutive sentences of one document) that never shared a
    sentence of the document (`together` holds the pairs that did), each by its closest named mentions
    (not pronouns: the passage between them then names both; of equally close ones the first of the head's,
    then of the tail's, in reading order), the tail a place (CROSS_TAIL); the topic is left out (every
    sentence pairs it with the others already). At most `limit`, closest first, then by entity. Every pair
    of mentions is measured at once: a chunk has hundreds of entity pairs."""
    ents = state.entities
    ms, ss = cross_mentions(state, sents)
    sent = np.array(ss, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    ent = np.array([m.entity for m in ms], dtype=np.int64)
    tails = np.array([i for i, m in enumerate(ms) if ents[m.entity].type == CROSS_TAIL], dtype=np.int64)
    if not len(tails):
        return CrossCandidates(ms, sent, none, none)
    # each mention's rank among its entity's mentions (reading order), the tie-break between equally close ones
    by_ent = np.argsort(ent, kind="stable")
    grouped = ent[by_ent]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    rank = np.empty_like(ent)
    rank[by_ent] = np.arange(len(ent)) - np.repeat(starts, np.diff(np.r_[starts, len(ent)]))
    hi = np.repeat(np.arange(len(ms)), len(tails))
    ti = np.tile(tails, len(ms))
    other = ent[hi] != ent[ti]
    hi, ti = hi[other], ti[other]
    dist = np.abs(sent[hi] - sent[ti])
    he, te = ent[hi], ent[ti]
    # per entity pair, the closest mentions (the lowest (distance, head's rank, tail's rank))
    order = np.lexsort((rank[ti], rank[hi], dist, te, he))
    he, te = he[order], te[order]
    first = np.r_[True, (he[1:] != he[:-1]) | (te[1:] != te[:-1])] if len(order) else np.zeros(0, dtype=bool)
    best = order[first]
    best = best[[(int(h), int(t)) not in together for h, t in zip(ent[hi[best]].tolist(), ent[ti[best]].tolist())]]
    kept = best[np.lexsort((ent[ti[best]], ent[hi[best]], dist[best]))][:limit]
    return CrossCandidates(ms, sent, hi[kept], ti[kept])


def cross_pairs(state: DocState, sents: list[list[SentMention]], together: set[tuple[int, int]], limit: int = 400) -> list[CrossPair]:
    """`cross_candidates` as CrossPairs (what training reads)."""
    c = cross_candidates(state, sents, together, limit)
    return [c.pair(k) for k in range(len(c))]


@dataclass(frozen=True, slots=True)
class DocPlaces:
    """What a document has said so far about places: its most named place, its first country, and how many
    countries it names (gazetteer classes)."""

    top: int | None
    first_country: int | None
    countries: int

    @classmethod
    def of(cls, state: DocState) -> "DocPlaces":
        ents = state.entities
        locs = [i for i, e in enumerate(ents) if e.type == "LOC"]
        top = min(locs, key=lambda i: (-ents[i].mentions, ents[i].first_sent, i)) if locs else None
        countries = [i for i, e in enumerate(ents) if gz.builtin_class(e.name) == "Country"]
        first = min(countries, key=lambda i: (ents[i].first_sent, i)) if countries else None
        return cls(top, first, len(countries))


def together_in(mentions: list[SentMention]) -> set[tuple[int, int]]:
    """The ordered pairs of distinct entities named (or resolved) in one sentence."""
    es = {m.entity for m in mentions if m.kind != "implicit"}
    return {(a, b) for a in es for b in es if a != b}


@dataclass(frozen=True, slots=True)
class Components:
    """One component (a kind of `CrossContext.parts` key) of every pair of some CrossCandidates."""

    kind: str
    codes: np.ndarray  # the distinct codes, one per distinct key
    index: np.ndarray  # per pair, its code's position in `codes` (-1: the pair has none of this kind)
    key: Callable[[int], tuple | None]  # the key of codes[k]


class CrossContext:
    """The cross-sentence pairs of some consecutive sentences of a document (their lower-cased `words`),
    as components: a pair's features are the union of a dozen parts, most shared with other pairs (its
    type pair at its distance, its head's own features against the tail's type, a sentence's bag of
    words, …). Training reads the features (`cross_features`); run time sums each part's weights once
    (`CrossHead.score`) — a chunk has hundreds of pairs over a few dozen entities."""

    def __init__(self, state: DocState, together: set[tuple[int, int]], words: list[list[str]]) -> None:
        self.state = state
        self.words = words
        self.places = DocPlaces.of(state)
        near: dict[int, set[int]] = {}
        for a, b in together:
            near.setdefault(a, set()).add(b)
        self.near = near
        self._cls: dict[int, str | None] = {}
        self._rendered: dict[tuple, tuple[str, ...]] = {}

    def cls(self, i: int) -> str | None:
        got = self._cls.get(i, "")
        if got == "":
            got = self._cls[i] = gz.lexicon_class(self.state.entities[i].name)
        return got

    def parts(self, pair: CrossPair) -> list[tuple]:
        """The pair's components (keys for `render`): the type pair at its distance and order with the two
        gazetteer classes; the head's mention against the tail's type; the tail's against the head's; the
        bags of words of the two sentences; the types of the entities that shared a sentence with both."""
        h, t = pair.h, pair.t
        out = [
            self._p(h.entity, t.entity, pair.h_sent, pair.t_sent),
            self._end("h", h, pair.h_sent, t.entity),
            self._end("t", t, pair.t_sent, h.entity),
            ("hb", pair.h_sent),
            ("tb", pair.t_sent),
        ]
        via = self._v(h.entity, t.entity)
        if via is not None:
            out.append(via)
        return out

    # Keys of this kind are made of types, classes and distances only, never of the document: `render` gives
    # the same features for them in every document, so run time keeps their weights' sums across chunks
    SHARED_KINDS = frozenset({"p"})

    def _p(self, h: int, t: int, hs: int, ts: int) -> tuple:
        ents = self.state.entities
        return ("p", ents[h].type, ents[t].type, "ht" if hs < ts else "th", abs(hs - ts), self.cls(h), self.cls(t))

    def _end(self, side: str, m: SentMention, sent: int, other: int) -> tuple:
        return self._end_type(side, m, sent, self.state.entities[other].type)

    @staticmethod
    def _end_type(side: str, m: SentMention, sent: int, other_type: str) -> tuple:
        return (side, m.entity, sent, m.a, m.b, m.kind, other_type)

    def end_signature(self, side: str, i: int, mkind: str, other: str) -> tuple:
        """What one end's features other than its words are made of: no document in it (`end_features`)."""
        e, c, pl = self.state.entities[i], self.cls(i), self.places
        return (
            side,
            mkind,
            c,
            other,
            _bucket(e.mentions),
            e.type,
            i == pl.top,
            side == "t" and i == pl.first_country,
            side == "t" and pl.countries == 1 and c == "Country",
            e.first_sent == 0,
        )

    @staticmethod
    def end_features(signature: tuple) -> list[str]:
        """One end's features other than its words (`end_signature`): how it was found, its gazetteer class, how
        often it is named, whether it is the document's main place or its first or only country, and whether it
        is named in the first sentence, against the other end's type."""
        side, mkind, c, other, n, etype, top, first_country, only_country, s0 = signature
        f = [f"x_{side}k={mkind}"]
        if c:
            f.append(f"x_{side}c={c}|{other}")
        f.append(f"x_{side}n={n}|{etype}")
        if top:
            f.append(f"x_{side}_toploc|{other}")
        if first_country:
            f.append(f"x_t_firstcountry|{other}")
        if only_country:
            f.append(f"x_t_onlycountry|{other}")
        if s0:
            f.append(f"x_{side}_s0|{etype}|{other}" if side == "h" else f"x_{side}_s0|{other}|{etype}")
        return f

    def _v(self, h: int, t: int) -> tuple | None:
        ents = self.state.entities
        nh, nt = self.near.get(h), self.near.get(t)
        via = (nh & nt) - {h, t} if nh and nt else None
        if not via:
            return None
        return ("v", f"{ents[h].type}|{ents[t].type}", tuple(sorted({ents[m].type for m in via})))

    def bound_keys(self, ms: list[SentMention], ss: list[int]) -> tuple[tuple[str, ...], tuple[str, ...], list[int], tuple, tuple] | None:
        """What bounds the pairs of these mentions (from `cross_mentions`; `ss` their sentences): the head types,
        the tail types, the positions in `ms` of the tails (every mention is a head), and for the kinds whose
        keys hold no document (p, v) a signature `shared_keys` turns into keys: each type pair at every
        distance bucket, order and pair of gazetteer classes, and every set of types a third entity can bring.
        A pair's other components are its head's end against its tail's type, its tail's against its head's
        (`end_signature`, `end_words`) and its two sentences' bags. None when no pair can be made."""
        ents = self.state.entities
        tails = [k for k, m in enumerate(ms) if ents[m.entity].type == CROSS_TAIL]
        if not tails or len({m.entity for m in ms}) < 2 or len(set(ss)) < 2:
            return None  # no pair: one entity, no place, or one sentence
        htypes = tuple(sorted({ents[m.entity].type for m in ms}))
        ttypes = tuple(sorted({ents[ms[k].entity].type for k in tails}))
        hcls = tuple(sorted({self.cls(m.entity) or "" for m in ms}))
        tcls = tuple(sorted({self.cls(ms[k].entity) or "" for k in tails}))
        far = _bucket(max(ss) - min(ss))
        kinds = tuple(sorted({e.type for e in ents}))
        return htypes, ttypes, tails, ("p", htypes, ttypes, far, hcls, tcls), ("v", htypes, ttypes, kinds)

    @staticmethod
    def shared_keys(signature: tuple) -> list[tuple]:
        """The keys a `bound_keys` signature (p or v) stands for (the same in every document)."""
        if signature[0] == "p":
            _, htypes, ttypes, far, hcls, tcls = signature
            dists = []  # the first distance of each bucket, up to `far`'s
            for d in _BUCKET_STARTS:
                dists.append(d)
                if _bucket(d) == far:
                    break
            return [
                ("p", ht, tt, o, d, hc or None, tc or None)
                for ht in htypes
                for tt in ttypes
                for o in ("ht", "th")
                for d in dists
                for hc in hcls
                for tc in tcls
            ]
        _, htypes, ttypes, kinds = signature
        via = [tuple(t for k, t in enumerate(kinds) if bits >> k & 1) for bits in range(1, 1 << len(kinds))]
        return [("v", f"{ht}|{tt}", types) for ht in htypes for tt in ttypes for types in via]

    def components(self, c: CrossCandidates, ids: dict[str | None, int]) -> list[Components]:
        """Every pair's components at once, in `parts` order, as codes: equal codes are equal keys, since
        each code is made of what its key is made of. `ids` numbers the type and class names for good (the
        caller keeps it as long as it keeps sums of shared components, whose codes are the same in every
        document)."""
        ents = self.state.entities
        ms = c.mentions
        ent = np.array([m.entity for m in ms], dtype=np.int64)

        def number(name: str | None) -> int:
            got = ids.get(name)
            if got is None:
                got = ids[name] = len(ids)
                if got >= 64:
                    raise ValueError("more than 64 type and class names")
            return got

        typ = np.array([number(ents[e].type) for e in ent.tolist()], dtype=np.int64)
        cls = np.array([number(self.cls(e)) for e in ent.tolist()], dtype=np.int64)
        hi, ti = c.head, c.tail
        hs, ts = c.sent[hi], c.sent[ti]
        ht, tt = typ[hi], typ[ti]
        H, T, S = hi.tolist(), ti.tolist(), c.sent.tolist()
        out: list[Components] = []

        def add(kind: str, codes: np.ndarray, make: Callable[[int, int], tuple | None]) -> None:
            present = np.flatnonzero(codes >= 0)
            uniq, first, inverse = np.unique(codes[present], return_index=True, return_inverse=True)
            index = np.full(len(codes), -1, dtype=np.int64)
            index[present] = inverse.reshape(-1)
            reps = present[first].tolist()
            out.append(Components(kind, uniq, index, lambda k: make(H[reps[k]], T[reps[k]])))

        type_pair = ht << 6 | tt
        p_code = np.abs(hs - ts) << 32 | type_pair << 20 | (hs < ts).astype(np.int64) << 12 | cls[hi] << 6 | cls[ti]
        add("p", p_code, lambda i, j: self._p(ms[i].entity, ms[j].entity, S[i], S[j]))
        add("h", hi << 6 | tt, lambda i, j: self._end("h", ms[i], S[i], ms[j].entity))
        add("t", ti << 6 | ht, lambda i, j: self._end("t", ms[j], S[j], ms[i].entity))
        add("hb", hs, lambda i, j: ("hb", S[i]))
        add("tb", ts, lambda i, j: ("tb", S[j]))
        add("v", self._via_codes(ent[hi], ent[ti], type_pair), lambda i, j: self._v(ms[i].entity, ms[j].entity))
        return out

    def _via_codes(self, he: np.ndarray, te: np.ndarray, type_pair: np.ndarray) -> np.ndarray:
        """Per pair (head and tail entities), a code of its type pair and of the set of types of the entities
        that shared a sentence with both ends (-1: none did)."""
        ents = self.state.entities
        ends = np.unique(np.r_[he, te])
        near = np.zeros((len(ends), len(ents)), dtype=bool)
        for r, e in enumerate(ends.tolist()):
            near[r, sorted(self.near.get(e, ()))] = True
        via = near[np.searchsorted(ends, he)] & near[np.searchsorted(ends, te)]
        rows = np.arange(len(he))
        via[rows, he] = False
        via[rows, te] = False
        names: dict[str, int] = {}
        etype = np.array([names.setdefault(e.type, len(names)) for e in ents], dtype=np.int64)
        mask = np.zeros(len(he), dtype=np.int64)
        for k in range(len(names)):
            mask |= via[:, etype == k].any(axis=1).astype(np.int64) << k
        return np.where(mask > 0, type_pair << len(names) | mask, -1)

    def render(self, key: tuple) -> tuple[str, ...]:
        """The features one component stands for."""
        got = self._rendered.get(key)
        if got is None:
            got = self._rendered[key] = tuple(self._render(key))
        return got

    def _render(self, key: tuple) -> list[str]:
        kind = key[0]
        if kind == "p":
            _, ht, tt, order, d, hc, tc = key
            tp, db = f"{ht}|{tt}", _bucket(d)
            f = [f"x_tp={tp}", f"x_d={db}", f"x_ord={order}", f"x_tp={tp}|{order}", f"x_tp={tp}|d={db}"]
            if hc and tc:
                f.append(f"x_hc={hc}|tc={tc}")
            return f
        if kind in ("h", "t"):  # one end: its mention, the entity's own features against the other end's type
            side, i, sent, a, b, mkind, other = key
            words = self.words[sent]
            own = [f"x_{side}{fam}={words[j]}" for fam, j in end_words(len(words), a, b)]
            return [*self.end_features(self.end_signature(side, i, mkind, other)), *own]
        if kind in ("hb", "tb"):
            return sentence_bag(self.words[key[1]], kind[0])
        if kind == "v":  # entities that shared a sentence with both ends
            return [f"x_via|{key[1]}", *(f"x_via={typ}|{key[1]}" for typ in key[2])]
        raise ValueError(f"unknown component {key!r}")


def cross_features(ctx: CrossContext, pair: CrossPair) -> list[str]:
    """Features of an entity pair that shares no sentence: types, distance and order, gazetteer classes,
    how often and how early each is named in the document, whether the tail is the document's main
    place or country, the types of entities that shared a sentence with both, each mention's own last and
    first words and the words beside it, and the bags of words of the two sentences."""
    return [f for key in ctx.parts(pair) for f in ctx.render(key)]


def end_words(n: int, a: int, b: int) -> list[tuple[str, int]]:
    """The words a cross-sentence pair's end is read by, as (feature family, position) in a sentence of `n`
    words where the mention is words a..b: its last word and, for a longer name, its first (as the sentence
    classifier reads them, `pair_features`), and the words before and after it. A family's feature is
    f"x_{side}{family}={word}"."""
    got = []
    if b > a:
        got.append(("w", b - 1))
        if b - a > 1:
            got.append(("f", a))
    if a >= 1:
        got.append(("pre1", a - 1))
    if b < n:
        got.append(("post1", b))
    return got


END_WORD_FAMILIES = ("w", "f", "pre1", "post1")  # end_words' families
BAG_FAMILY = "sw"  # sentence_bag's


def sentence_bag(words: list[str], side: str) -> list[str]:
    """The bag of a sentence's words as features of a cross-sentence pair's head ("h") or tail ("t") side, in
    the order of the words themselves (the prefix is the same)."""
    return sorted({f"x_{side}{BAG_FAMILY}={w}" for w in words})
