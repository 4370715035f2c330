"""The statistical extractor: shipped weights in, taxonomy triples with calibrated confidences out.

Per sentence: tokens -> CRF entity tags -> mentions grouped into the document's entities (see
document.DocState) -> every ordered entity pair scored by one logistic regression per aligned
Wikidata property -> calibrated -> kept at or above the floor. Per chunk: pairs across sentences, a town's
country from the town table (towns.py), and a birth, a death, a school, a spouse, a citizenship or a headquarters the
rule extractor reads (`rule_pairs`), the last two at the measured share of such facts. Deterministic: no sampling, no
threads, the same weights give the same triples. Loads from disk only; no network.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import cast

import numpy as np

from semantic_rdf.core.identity import fold
from semantic_rdf.core.values import Chunk, Triple
from semantic_rdf.core.vocab import functional_predicates
from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.pipeline.dates import clause_validity
from semantic_rdf.pipeline.extract import RuleExtractor, predicate_hints, school_name, sentence_spans
from semantic_rdf.pipeline.screening import check_chunk, check_floor
from semantic_rdf.pipeline.statistical.alignment import alignment
from semantic_rdf.pipeline.statistical.cross import (
    CrossContext,
    CrossPair,
    cross_candidates,
    cross_mentions,
    together_in,
)
from semantic_rdf.pipeline.statistical.document import DocState
from semantic_rdf.pipeline.statistical.mentions import ENTITY_TYPES, SentenceMemo, SentMention
from semantic_rdf.pipeline.statistical.pairs import candidate_pairs, pair_features, possessives
from semantic_rdf.pipeline.statistical.tagging import ner_features
from semantic_rdf.pipeline.statistical.text import Token, tokenize, web_address
from semantic_rdf.pipeline.statistical.towns import Towns, canonical_country, country_names, institution, load_towns, other_codes, town_pairs
from semantic_rdf.pipeline.statistical.weights import WEIGHTS_DIR, Weights

__all__ = [
    "StatisticalExtractor",
    "CrossScored",
    "score_cross",
    "BY_RULES",
    "SUBJECT_TYPE",
    "rule_properties",
    "by_sentence",
    "rule_pairs",
    "rule_predicates",
    "READ_AS",
]

_CLASS = {"PER": "Person", "ORG": "Organization", "LOC": "Place", "MISC": "Thing"}
_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.M)
_MAX_PAIRS = 400  # entity pairs scored per sentence (or per chunk, across sentences) at most
_MAX_TOGETHER = 20_000  # a document naming so many pairs together is a list, not prose: no cross stage
# a Markdown heading opens the sentence. (Plain-text lines without end punctuation were tried as headings too: on
# GUM's pages an infobox line, "Alma mater Conservatoire de Paris", then read as a title took the topic away.)
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]")
_CODE_TAG = re.compile(r"<(pre|code)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def names_only(words: list[str], spans: list[tuple[int, int, str, int | None]]) -> bool:
    """Whether a heading's words are one name and nothing else ("# Chinua Achebe"): a new article about it
    (DocState.new_section). A heading that names no one, or more than a name ("## Early life", "## Years at
    IBM"), starts a section of the same article: "She" below it is still the article's person."""
    first = next((i for i, w in enumerate(words) if w.strip("#")), None)
    named = [(a, b) for a, b, typ, _ in spans if typ in ENTITY_TYPES]
    return first is not None and named == [(first, len(words))]


def _named(name: str, typ: str) -> str:
    """The name a triple gives an entity: another name of a country as the country's own ("U.S.", "USA", "the United
    States" as "United States": `towns.canonical_country`), so that one document's "Cleveland located_in U.S." and
    "… located_in USA" are one fact, and one entity across documents; not a person's name ("Holland"). Whatever
    else the tagger took the name for (a place, a nationality, "the U.S. government"'s organisation), so that the
    triples, typed at their sentence, and the aliases, at the document's end, name it alike. Only the triple's
    name: the classifiers read the name as written (read as "United States", "U.S." took the features of a country
    the lexicons list, and the cross-sentence classifier put many a place and firm of a text in it: docs/extraction.md)."""
    return name if typ == "PER" else canonical_country(name) or name


def _table_code(place: str) -> str | None:
    """The town table's country code of a country, or of a first-level region or a town (`Towns.place`), by its name."""
    towns = load_towns()
    return towns.country(place) or towns.place(place)


def _placed_elsewhere(place: str, country: str, stated: Iterable[str] = ()) -> bool:
    """Whether the town table puts a place (a town or a first-level region, by its name) in a country other than
    `country`, and the document has not stated that it lies in a place of `country` (`stated`: the table codes of what
    it said the place lies in; "Sudbury, Ontario" places the table's English Sudbury in Canada). A reading across
    sentences is no evidence against the table: the cross-sentence classifier put "Hamburg" in the United Kingdom a
    text named a paragraph before. A country is not placed so (Hong Kong lies in China, Puerto Rico in the United
    States). Nor is a town of a country the name may also stand for (`towns.other_codes`: the U.S. state of Georgia,
    either Korea)."""
    towns = load_towns()
    wheres = _country_codes(country)
    if not wheres or towns.country(place) is not None:
        return False
    code = towns.place(place)
    return code is not None and not any(Towns.lies_in(c, w) for c in (code, *stated) for w in wheres)


def _country_code(name: str) -> str | None:
    """The town table's code of a country's name, read from the table's country lines only (`country_names`: the
    towns themselves are not loaded for it)."""
    return country_names().get(fold(name))


def _country_codes(name: str) -> list[str]:
    """Every code a country's name may stand for: its own, and those `towns.other_codes` lists for it."""
    return [c for c in (_country_code(name), *other_codes(name)) if c]


# the object classes a listed place (the gazetteer's country, city or first-level region) cannot be
_NOT_A_PLACE = frozenset({"Organization", "Person", "Work", "Award", "Artifact"})


def _out_of_range(obj: str, object_class: str | None) -> bool:
    """Whether `obj` is a place the gazetteer lists given as an object the predicate's range says is no place: a
    place written as an organisation's owner ("She studied at Warsaw's clandestine Flying University") had given
    `educated_at Warsaw`, an Organization's role held by a City (docs/extraction.md, "Entity classes")."""
    return object_class in _NOT_A_PLACE and gz.lexicon_class(obj) in ("City", "Country", "Region")


def _may_lie_in(place: str, where: str) -> bool:
    """False for a country in itself under another name ("U.S." located_in "United States": the town table's codes),
    and for a state the demonym lexicon names in another country ("United Kingdom located_in France", read from "an
    alliance of Britain, France, Austria": such readings were all wrong, docs/extraction.md step 7), but for one of the
    United Kingdom's nations in it, and for a state's name that may also stand for a region of `where` ("Georgia" in
    the United States: `towns.other_codes`). Other places the table lists as countries (Hong Kong, Greenland, Puerto
    Rico: codes of their own) may lie in a state of the lexicon, not in one another ("Guadeloupe located_in Puerto
    Rico", from GUM's guide to Guadeloupe)."""
    a, b = _country_code(place), _country_code(where)
    if a is None or b is None:
        return True
    if a == b:
        return False
    if Towns.lies_in(a, b):
        return True
    if (canonical_country(where) or where) not in _STATES:
        return False  # a territory of its own lies in a state, not in another territory (Guadeloupe in Puerto Rico)
    return place not in _STATES or b in other_codes(place)


# the demonym lexicon's countries that lie in no other (`_may_lie_in`): Puerto Rico is the United States' territory
_STATES = frozenset(gz.DEMONYMS.values()) - {"Puerto Rico"}


def _one_object(predicate: str, obj: str) -> str | None:
    """What a subject has one of, when `predicate` to `obj` is such a thing: the predicate itself when the
    ontology declares it functional (born_in, died_in, …), "country" for located_in a country; else None."""
    if predicate in functional_predicates():
        return predicate
    if predicate == "located_in" and gz.builtin_class(obj) == "Country":
        return "country"
    return None


def _one_of(a: str, b: str) -> bool:
    """Whether objects `a` and `b` of a subject's one country (`_one_object`) are the same one: the same name, or
    one of the United Kingdom's nations and the United Kingdom (the town table's codes: "GB.ENG" lies in "GB"), or
    names that may stand for one (`towns.other_codes`: Georgia and the United States, Korea and South Korea). Documents place
    London in England and in the United Kingdom, and Re-DocRED states both; the second had been dropped as a second
    country."""
    if a == b:
        return True
    return any(Towns.lies_in(x, y) or Towns.lies_in(y, x) for x in _country_codes(a) for y in _country_codes(b))


# what the rule extractor (pipeline/extract.py) reads of a birth, a death, a school, a spouse, a citizenship or a
# headquarters, and the type of entity the object must be: its patterns are precise where the classifiers score low
# ("William H. Armstrong was born in Williamsport", "(18 December 1931 in Mladá Boleslav – 10 November 1991 in Prague)",
# "Mark Harmsworth is an American politician", "a song by Italian singer Tiziano Ferro"), so its facts are stated at the
# share right of the facts read by rule out of fold, as a town's are (docs/extraction.md, step 8)
BY_RULES = {
    "born_in": ("LOC",),
    "died_in": ("LOC",),
    "educated_at": ("ORG", "LOC"),
    "spouse_of": ("PER",),
    "country_of_citizenship": ("LOC",),
    "headquartered_in": ("LOC",),
}
# the type of entity the subject must be: a person, but where a company or an association is headquartered ("Nokia is
# headquartered in Espoo", "Pointr is a startup company based in London": the classifiers score such places low, and
# had read "Nokia Corporation is a Finnish … company headquartered in Espoo, Finland" as Nokia located in Finland alone)
SUBJECT_TYPE = {"headquartered_in": "ORG"}
# a rule predicate read as one of `BY_RULES`: "She studied at the University of Nigeria" is where she was educated
READ_AS = {"studied_at": "educated_at"}


def rule_properties(relations: Iterable[str]) -> dict[str, str]:
    """Predicate -> Wikidata property, for each predicate of `BY_RULES` that one of `relations` (the properties a set
    of weights scores) aligns with directly: what the extractor reads by rule, and what training calibrates so."""
    align = alignment()
    out: dict[str, str] = {}
    for pid in relations:
        pred, inverse = align.get(pid, ("", True))
        if not inverse and pred in BY_RULES:
            out[pred] = pid
    return out


def rule_predicates(pid_of: Mapping[str, str]) -> frozenset[str]:
    """The rule extractor's predicates whose facts are read (`rule_pairs`) for those of `BY_RULES` in `pid_of`."""
    return frozenset(pid_of) | {rule for rule, pred in READ_AS.items() if pred in pid_of}


def by_sentence(triples: Iterable[Triple], spans: list[tuple[int, int]], offset: int = 0) -> dict[int, list[Triple]]:
    """Each triple under the position in `spans` of the sentence its evidence starts in (`spans` offsets less `offset`
    into the text the triples' `start` counts in); a triple in none of them is left out."""
    starts = [a for a, _ in spans]
    out: dict[int, list[Triple]] = {}
    for t in triples:
        if t.start is None:
            continue
        k = bisect_right(starts, t.start - offset) - 1
        if k >= 0 and t.start - offset < spans[k][1]:
            out.setdefault(k, []).append(t)
    return out


def rule_pairs(
    triples: Iterable[Triple], state: DocState, mentions: list[SentMention], pronouns_of: Callable[[Triple], tuple[str, str]]
) -> list[tuple[SentMention, SentMention, str]]:
    """(the subject's mention, the object's mention, predicate) for each triple of a predicate of `BY_RULES` (or read as
    one, `READ_AS`) that the rule extractor stated in one sentence (whose `mentions` the document's state found): its
    subject a person (an organisation for a predicate of `SUBJECT_TYPE`) the state names there as the rules read it, or
    the person the state resolved the rules' pronoun to (`pronouns_of`; the rules' own guess at who it stands for is not
    taken: they know no gender, and "Her father was Lord Byron. … She died in Marylebone" is Lord Byron's death to
    them), its object an entity of the type the predicate
    takes, named there (by its name or, for a country, its nationality word; not read from a pronoun). A fact read as
    another predicate (`READ_AS`) is taken only of a school's name ("studied at the University of Nigeria", not "studied
    at the Louvre": `extract.school_name`)."""
    out: list[tuple[SentMention, SentMention, str]] = []
    ents = state.entities
    for t in triples:
        pred = READ_AS.get(t.predicate, t.predicate)
        kinds = BY_RULES.get(pred)
        if kinds is None or (pred != t.predicate and not school_name(t.object)):
            continue
        pron_s, pron_o = pronouns_of(t)
        ti = state.by_key.get(fold(t.object))
        if pron_o or ti is None or ents[ti].type not in kinds:
            continue
        if pron_s:
            # the pronoun as the state resolved it, when the sentence holds no other of that spelling, or only ones
            # resolved to the same person ("He taught Per Lund, who said he was born in Narvik": whose birth it is
            # the rules' match knows and the mentions do not)
            same = [m for m in mentions if m.kind == "pron" and m.surface.lower() == pron_s.lower()]
            said = t.chunk.text[(t.start or 0) - t.chunk.start : (t.end or 0) - t.chunk.start] if t.chunk is not None else ""
            spelt = len(re.findall(rf"\b{re.escape(pron_s)}\b", said, re.I))
            mh = same[0] if same and len(same) == spelt and len({m.entity for m in same}) == 1 else None
        else:
            hi = state.by_key.get(fold(t.subject))
            mh = None if hi is None else next((m for m in mentions if m.entity == hi and m.kind == "named"), None)
        # the object as named; a country by its nationality word for a citizenship only (the birth of "died a French
        # citizen; she was born in France" is in France, not where "French" stands)
        kinds_of_mention = ("named", "demonym") if pred == "country_of_citizenship" else ("named",)
        mt = min((m for m in mentions if m.entity == ti and m.kind in kinds_of_mention), key=lambda m: m.kind != "named", default=None)
        if mh is not None and mt is not None and mh.entity != ti and ents[mh.entity].type == SUBJECT_TYPE.get(pred, "PER"):
            out.append((mh, mt, pred))
    return out


def _raised(triples: list[Triple], scores: dict[tuple[str, str, str], float]) -> list[Triple]:
    """`triples` with each whose (subject, predicate, object) `scores` holds at a higher score given that score, its
    evidence kept.

    >>> from semantic_rdf.core.values import Chunk
    >>> t = Triple("Gingoog", "located_in", "Philippines", Chunk("d", 0, "…", 0, 1), 0.32)
    >>> [x.score for x in _raised([t], {("Gingoog", "located_in", "Philippines"): 0.79})]
    [0.79]
    """
    if not scores:
        return triples
    return [
        replace(t, score=round(got, 4)) if (got := scores.get((t.subject, t.predicate, t.object))) is not None and t.confidence < got else t
        for t in triples
    ]


def tag_spans(tagger, words: list[str], keep: frozenset[str] | None = None) -> list[tuple[int, int, str]]:
    """BIO tags from the CRF as (token a, token b, type) spans (keep: see tagging.ner_features)."""
    tags = tagger.tag(ner_features(words, keep)) if words else []
    spans: list[tuple[int, int, str]] = []
    a, typ = -1, ""
    for i, tag in enumerate(tags):
        if tag == "O":  # most tokens: nothing opens
            if a >= 0:
                spans.append((a, i, typ))
                a = -1
            continue
        opens = tag.startswith("B-")
        if a >= 0 and (opens or tag[2:] != typ):
            spans.append((a, i, typ))
            a = -1
        if opens or (a < 0 and tag.startswith("I-")):  # "B-X", or an "I-X" that continues nothing
            a, typ = i, tag[2:]
    if a >= 0:
        spans.append((a, len(tags), typ))
    return spans


def short_line_ends(text: str, offset: int, tokens: list[Token]) -> frozenset[int]:
    """The tokens of a sentence (`tokens`, with offsets into `text` plus `offset`) that open a line after a line of
    three words or fewer: an infobox's or a title's ("Jeanne Moreau\nJeanne Moreau\nMoreau in 1958"), where no name
    goes on into the next line (`split_at`). A line of wrapped prose holds more words, and a name may go on there."""
    if len(tokens) < 2 or text.find("\n", tokens[0].start - offset, tokens[-1].end - offset) < 0:
        return frozenset()
    out = set()
    for i in range(1, len(tokens)):
        end = tokens[i - 1].end - offset
        if "\n" not in text[end : tokens[i].start - offset]:
            continue
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end].strip()
        if len(line.split()) > 3:
            continue
        before = text[text.rfind("\n", 0, start - 1) + 1 : start - 1].strip() if start else ""  # the line before
        stop = text.find("\n", tokens[i].start - offset)
        after = text[tokens[i].start - offset : stop if stop >= 0 else len(text)].strip()
        if line in (before, after) or len(line) <= 0.6 * max(len(before), len(after)):
            out.add(i)
    return frozenset(out)


def split_at(spans: list[tuple[int, int, str]], cuts: frozenset[int]) -> list[tuple[int, int, str]]:
    """Tagged spans cut before each token of `cuts`.

    >>> split_at([(0, 4, "PER"), (5, 6, "LOC")], frozenset({2, 5}))
    [(0, 2, 'PER'), (2, 4, 'PER'), (5, 6, 'LOC')]
    """
    out: list[tuple[int, int, str]] = []
    for a, b, typ in spans:
        inner = sorted(i for i in cuts if a < i < b)
        out.extend(zip([a, *inner], [*inner, b], [typ] * (len(inner) + 1)))
    return out


_PRONOUNS = frozenset("he she they we He She They We".split())


def without_pronouns(spans: list[tuple[int, int, str]], words: list[str]) -> list[tuple[int, int, str]]:
    """Tagged spans without the personal pronouns in them: "Born 23 January 1928 Paris, France\nShe was …" had tagged
    "France She" one place.

    >>> without_pronouns([(0, 2, "LOC")], ["France", "She", "was"])
    [(0, 1, 'LOC')]
    """
    if not any(words[i] in _PRONOUNS for a, b, _ in spans for i in range(a, b)):
        return spans
    out = []
    for a, b, typ in spans:
        start = a
        for i in range(a, b + 1):
            if i == b or words[i] in _PRONOUNS:
                if start < i:
                    out.append((start, i, typ))
                start = i + 1
    return out


def _for_tagger(words: list[str]) -> list[str]:
    """The words as the tagger reads them: a web or e-mail address (one token) as a comma. Read as itself, a word the
    tagger has never seen, it ran the names on either side into one ("Claire Bailey-Ross claire.bailey-ross@port.ac.uk
    University of Portsmouth" one organisation); as a separator, they stay apart."""
    if not any("@" in w or "/" in w or w[:4] in ("www.", "WWW.") for w in words):
        return words
    return ["," if web_address(w) else w for w in words]


@dataclass(frozen=True, slots=True)
class Scored:
    """One entity pair of a sentence with its calibrated probability for one Wikidata property."""

    h: SentMention
    t: SentMention
    pid: str
    p: float
    sent: int


class Annotator:
    """A document's sentences -> scored pairs; shared by the extractor, training's tuning pass and the bench."""

    def __init__(self, weights: Weights) -> None:
        self.w = weights

    def sentence(
        self, state: DocState, tokens: list[Token], gold: list[tuple[int, int, str, int | None]] | None = None
    ) -> tuple[list[SentMention], list[Scored]]:
        mentions, scored, _ = self.sentences(state, [tokens], gold)[0]
        return mentions, scored

    def sentences(
        self,
        state: DocState,
        sents: list[list[Token]],
        gold: list[tuple[int, int, str, int | None]] | None = None,
        headings: list[bool] | None = None,
        least: float = 0.02,
        breaks: list[frozenset[int]] | None = None,
    ) -> list[tuple[list[SentMention], list[Scored], dict[int, str]]]:
        """Several consecutive sentences of a document: per sentence its mentions, its scored pairs and the
        types its entities had then (a later mention can change an entity's majority type). Pairs are scored
        for the properties they reach over 0.02 and at least `least` (the extractor's floor: a calibration
        curve over 0.02 for nearly every raw probability would otherwise make every pair a candidate).

        The document state grows sentence by sentence exactly as one `sentence` call at a time would; only
        the scoring is batched: all pairs of all the sentences go through one lookup, gather, reduce and
        calibration (numpy's per-call overhead dominated on sentences of a few pairs). Each pair's sum is
        the same float32 sum as before, the sentence's last pair included (see Weights.score)."""
        per: list[tuple[list[SentMention], list[tuple[SentMention, SentMention]], dict[int, str], int]] = []
        feats: list[list[str]] = []
        ents = state.entities
        keep = self.w.crf_keep() if gold is None else None
        for k, tokens in enumerate(sents):
            words = [t.text for t in tokens]
            if gold is not None:
                spans = gold
            else:
                # a one-word sentence (a heading: "Understand", "Overview") gives the tagger no context, and its
                # capital is the line's: its word is a name only if the document named it so before (known_spans)
                tagged = tag_spans(self.w.tagger, _for_tagger(words), keep) if len(words) > 1 else []
                if breaks and breaks[k]:
                    tagged = split_at(tagged, breaks[k])
                tagged = without_pronouns(tagged, words)
                spans = [(a, b, typ, None) for a, b, typ in tagged]
                spans = state.known_spans(words, spans)
            if headings and headings[k]:
                state.new_section(article=names_only(words, spans))
            mentions = state.add_sentence(tokens, spans)
            # a list of hundreds of names: the closest pairs only (bounded work)
            pairs = candidate_pairs(mentions, possessives(tokens, mentions, lambda i: ents[i].type) if gold is None else None, _MAX_PAIRS)
            types = {m.entity: ents[m.entity].type for m in mentions}
            if pairs:
                lower = [w.lower() for w in words]
                memo = SentenceMemo()
                feats.extend(features_of(state, lower, h, t, mentions, memo) for h, t in pairs)
            per.append((mentions, pairs, types, state.sent))
        if not feats:
            return [(m, [], ty) for m, _, ty, _ in per]
        probs = self.w.calibrate(self.w.score_sentences(feats, [len(p) for _, p, _, _ in per]), max(least, 0.02))
        rel = self.w.relations
        hits = np.nonzero((probs > 0.02) & (probs >= least))  # row-major: pair by pair, property by property
        out: list[tuple[list[SentMention], list[Scored], dict[int, str]]] = []
        row = 0
        pos = 0
        nhits = len(hits[0])
        ks, js = hits[0].tolist(), hits[1].tolist()
        for mentions, pairs, types, sent in per:
            end = row + len(pairs)
            scored = []
            while pos < nhits and ks[pos] < end:
                k, j = ks[pos], js[pos]
                h, t = pairs[k - row]
                scored.append(Scored(h, t, rel[j], float(probs[k, j]), sent))
                pos += 1
            out.append((mentions, scored, types))
            row = end
        return out


@dataclass(frozen=True, slots=True)
class CrossScored:
    """An entity pair that shares no sentence, with its calibrated probability for one Wikidata property."""

    pair: CrossPair
    pid: str
    p: float


def score_cross(
    w: Weights,
    state: DocState,
    sents: list[list[SentMention]],
    words: list[list[str]],
    together: set[tuple[int, int]],
    least: float = 0.02,
) -> list[CrossScored]:
    """The pairs of `sents` (consecutive sentences of a document, their lower-cased `words`) whose entities
    never shared a sentence of the document (`together`), scored by the cross-sentence classifiers: those
    with a probability of at least `least` (and over 0.02) for a property."""
    ctx = CrossContext(state, together, words)
    if w.cross.out_of_reach(ctx, *cross_mentions(state, sents), least=max(least, 0.02)):
        return []
    pairs = cross_candidates(state, sents, together, _MAX_PAIRS)
    if not len(pairs):
        return []
    probs = w.cross.score(ctx, pairs)
    rel = w.cross.relations
    ks, js = np.nonzero((probs > 0.02) & (probs >= least))
    return [CrossScored(pairs.pair(k), rel[j], float(probs[k, j])) for k, j in zip(ks.tolist(), js.tolist())]


def features_of(
    state: DocState, lower: list[str], h: SentMention, t: SentMention, mentions: list[SentMention], memo: SentenceMemo | None = None
) -> list[str]:
    eh, et = state.entities[h.entity], state.entities[t.entity]
    return pair_features(
        lower,
        h,
        t,
        eh.type,
        et.type,
        h.entity == state.first,
        t.entity == state.first,
        mentions,
        state.sent,
        gz.lexicon_class(et.name),
        gz.lexicon_class(eh.name),
        memo,
    )


# the predicates whose valid time starts at the date their clause states (docs/extraction.md, "Valid time")
_DATED = frozenset({"born_in", "died_in", "place_of_birth", "place_of_death"})
# A birth or a death is read only from a sentence that says so: a word of it, or a bracket with a year in it (a
# biography's first line, "(6 March 1931, Moscow)"). The classifiers had learnt the place near a person as a
# birthplace: "He spent 15 years as a lawyer in private practice in Syracuse" gave `born_in Syracuse` at 0.90, and a
# review headed "Best Electrician in Florence" `Best Electrician born_in Florence`.
_BIRTH = re.compile(r"\b(?:[Bb]orn|[Bb]irth\w*|native|n[ée]e|b\.)(?!\w)")
_DEATH = re.compile(r"\b(?:[Dd]ied|[Dd]ies|[Dd]eath|killed|buried|d\.|executed|murdered|assassinated|passed away)(?!\w)")
_SAYS = {"born_in": _BIRTH, "place_of_birth": _BIRTH, "died_in": _DEATH, "place_of_death": _DEATH}
_OTHER = {"born_in": _DEATH, "place_of_birth": _DEATH, "died_in": _BIRTH, "place_of_death": _BIRTH}


def said_of_the_other(predicate: str, sentence: str, at: int, end: int | None = None) -> bool:
    """Whether the last word of a birth or a death before the place at `at` (to `end`) in `sentence` is a word of the
    other: the place after it is where the other happened ("was born in Tromsø and died in Narvik" had given born_in
    Narvik at 0.95), unless a "where" clause right after the place says it ("buried in Narvik, where she was born").

    >>> said_of_the_other("born_in", "She was born in Tromsø and died in Narvik.", 35)
    True
    >>> said_of_the_other("born_in", "She was born in Tromsø and died in Narvik.", 16)
    False
    >>> said_of_the_other("born_in", "She was buried in Narvik, where she had been born.", 18, 24)
    False
    >>> said_of_the_other("born_in", "She was born in Oslo and died in Narvik, where her son was born.", 33, 39)
    True

    Nor is a birth of the place after another stay that follows the birth's own place ("born in Bergen, grew up in
    Tromsø" had given born_in Tromsø at 0.89), where "born and raised in Tromsø" is the birth's:

    >>> said_of_the_other("born_in", "He was born in Bergen, grew up in Tromsø and died in Narvik.", 34, 40)
    True
    >>> said_of_the_other("born_in", "He was born and raised in Tromsø.", 26, 32)
    False
    """
    own = max((m.end() for m in _SAYS[predicate].finditer(sentence, 0, at)), default=-1)
    if own >= 0 and predicate in _STAYED_AFTER:
        stay = max((m.start() for m in _STAYED_AFTER[predicate].finditer(sentence, own, at)), default=-1)
        if stay >= 0 and _NAMED.search(sentence, own, stay):
            return True
    if max((m.end() for m in _OTHER[predicate].finditer(sentence, 0, at)), default=-1) <= own:
        return False
    where = _WHERE.match(sentence, end) if end is not None else None
    return where is None or not _SAYS[predicate].search(where.group(1))


# a stay after a birth, once the birth's place is named: the place after it is the stay's
_STAY = re.compile(r"\b(?:grew\s+up|raised|moved|lived|settled|emigrated|relocated|studied|worked|spent)\b")
_STAYED_AFTER = {"born_in": _STAY, "place_of_birth": _STAY}
# a name or a date between the birth's word and the stay: the birth's own place or time ("born in 1950 and raised in
# Tromsø" says where she was raised)
_NAMED = re.compile(r"[A-Z\d]")

# a "where" clause of the same person ("…, where she had been born"; not "…, where her son was born")
# read from a name's end (never after a blank: the look-behind makes a run of blanks tried once, from its first)
_WHERE = re.compile(r"(?<!\s)\s*+,?\s*+where\s++(?:he|she|they)\b([^;.]*+)")


_YEAR_IN_BRACKETS = re.compile(r"\([^()]*\b(?:1\d{3}|20\d\d)\b[^()]*\)")


def _kin(state: DocState, i: int, j: int) -> bool:
    """Whether the last word of entity `i`'s name or of `j`'s is a word of the other's (folded): "Desmarais" and
    "Paul Desmarais Jr" may be one man; "Lena Jones" and "Lena Smith" are two."""
    a, b = fold(state.entities[i].name).split(), fold(state.entities[j].name).split()
    return bool(a and b) and (a[-1] in b or b[-1] in a)


class _Doc:
    """Run-time state of one document: its entities, what has been emitted, where a code block is open."""

    def __init__(self) -> None:
        self.state = DocState()
        self.seen_end = 0
        self.emitted: set[tuple[str, str, str]] = set()
        # (subject, what it has one of) -> the objects emitted for it (`_one_object`, `_triple`)
        self.held: dict[tuple[str, str], set[str]] = {}
        self.placed: dict[str, set[str]] = {}  # a place -> the town table's codes of what it was stated to lie in
        self.in_fence = False
        self.named_at: dict[int, tuple[int, int]] = {}  # entity -> its latest named mention before this sentence
        self.together: set[tuple[int, int]] = set()  # entity pairs that shared a sentence (the cross stage skips them)
        self.lists = False  # too many pairs shared sentences: the cross stage is off for this document
        # a country entity -> the chunk and the mention that last named it, in a chunk before this one (`_towns`)
        self.countries: dict[int, tuple[Chunk, SentMention]] = {}
        # the rule extractor reading this document's births, deaths, schools, spouses, citizenships and headquarters
        # (`_read_by_rules`): one per document, so what it learns of names in one document does not steer another's
        self.rules: RuleExtractor | None = None


class StatisticalExtractor:
    """Trained, deterministic, offline extractor for the 53-predicate taxonomy (see docs/extraction.md).

    floor: confidence floor on the calibrated probability; None takes the floor chosen at training
    (on the tuning documents, for precision >= 0.80). Chunks of one document should come in order: a
    document's entities, and the antecedents of its pronouns, are carried from chunk to chunk.
    `entity_types` maps each entity name in an emitted triple to its ontology class; `aliases(doc_id)`
    gives each entity's other names in that document; `surfaces` records, per emitted triple, the
    surface forms its subject and object stood for in the evidence and how each was found (named,
    demonym, pron, nominal, implicit; "antecedent" for the second selector of a resolved one), for
    span-fidelity checks. A triple whose subject or object was resolved from a pronoun or nominal comes
    twice: with the sentence as evidence, and with the antecedent's mention (when it lies in the chunk)."""

    process_safe = True  # the weights are read-only: a forked child (ahead.py) extracts the same

    def __init__(self, floor: float | None = None, *, weights: Weights | str | Path | None = None, max_sentence: int = 2000) -> None:
        self.w = weights if isinstance(weights, Weights) else _cached_weights(str(weights or WEIGHTS_DIR))
        # a floor given is checked and returned as given (None only when none is given)
        self.floor: float = self.w.floor if floor is None else cast(float, check_floor(floor))
        self.annotator = Annotator(self.w)
        self.max_sentence = max_sentence
        align = alignment()
        self._pred = {pid: align[pid] for pid in self.w.relations if pid in align}
        self._pid_of = rule_properties(self.w.relations)
        self.hints = predicate_hints()
        man = self.w.manifest
        wsha = man.get("weights_sha256", "unversioned")
        self.agent = f"statistical-extractor-{wsha[:12]}"
        self.model_id = f"semantic_rdf.pipeline.statistical weights sha256:{wsha} training data sha256:{man.get('training_data_sha256', 'unknown')}"
        self.entity_types: dict[str, str] = {}
        self.surfaces: OrderedDict[tuple, tuple[str, str]] = OrderedDict()
        self._docs: OrderedDict[str, _Doc] = OrderedDict()

    def aliases(self, doc_id: str) -> dict[str, set[str]]:
        """Each entity's other names by the name its triples give it (`_named`: a country's other names under one)."""
        d = self._docs.get(doc_id)
        if d is None:
            return {}
        out: dict[str, set[str]] = {}
        for e in d.state.entities:
            out.setdefault(_named(e.name, e.type), set()).update(e.aliases, (e.name,))
        return {name: names - {name} for name, names in out.items()}

    def _class(self, name: str, typ: str, hint: str | None) -> str:
        if typ == "LOC":
            return gz.builtin_class(name) or "Place"
        if typ == "MISC" and hint in ("Work", "Award", "Artifact", "Concept", "Field", "Event"):
            return hint
        return _CLASS.get(typ, "Thing")

    def extract(self, chunk: Chunk) -> list[Triple]:
        check_chunk(chunk)
        doc = self._docs.get(chunk.doc_id)
        if doc is None:
            doc = self._docs[chunk.doc_id] = _Doc()
        self._docs.move_to_end(chunk.doc_id)
        while len(self._docs) > 256:
            self._docs.popitem(last=False)
        text = chunk.text
        code = self._code_regions(doc, text)
        out: list[Triple] = []
        spans: list[tuple[int, int]] = []
        sents: list[list[Token]] = []
        headings: list[bool] = []
        seen_end = doc.seen_end
        off = chunk.start
        cuts = sentence_spans(text)
        for a, b in cuts:
            if off + a < seen_end:
                continue  # an overlapping chunk repeats sentences already read
            if b - a > self.max_sentence or any(a < ce and cs < b for cs, ce in code):
                continue  # code is not prose; an overlong "sentence" is a table or a dump
            tokens = tokenize(text, a, b, off)
            if not tokens:
                continue
            spans.append((a, b))
            sents.append(tokens)
            headings.append(_HEADING.match(text, a) is not None)
            seen_end = off + b
        if not sents:
            return out
        results = self.annotator.sentences(
            doc.state, sents, headings=headings, least=self.floor, breaks=[short_line_ends(text, off, t) for t in sents]
        )
        said = self._read_by_rules(doc, chunk, cuts, spans)
        raised: dict[tuple[str, str, str], float] = {}
        for k, ((a, b), (mentions, scored, types)) in enumerate(zip(spans, results)):
            sa, sb = off + a, off + b
            # a fact the sentence states of another person it names is not also the unnamed topic's ("Barack Obama
            # met Angela Merkel. Chuck Berry was born in St. Louis." gave Obama born_in St. Louis at 0.78 too); a
            # surname may be the topic's own (`_kin`), and two places of a sentence may well lie in one region
            ents = doc.state.entities
            named = [
                (s.pid, s.t.entity, s.h.entity) for s in scored if s.h.kind != "implicit" and s.p >= self.floor and ents[s.h.entity].type == "PER"
            ]
            for s in scored:
                if s.p < self.floor or s.pid not in self._pred:
                    continue
                if (
                    named
                    and s.h.kind == "implicit"
                    and any((p, t) == (s.pid, s.t.entity) and not _kin(doc.state, h, s.h.entity) for p, t, h in named)
                ):
                    continue
                out.extend(self._triple(doc, chunk, s.h, s.t, s.pid, s.p, sa, sb, types))
            if k in said and doc.rules is not None:
                # read in the sentence's turn, as its own pairs are: a pronoun's antecedent is the latest name before it
                for mh, mt, pred in rule_pairs(said[k], doc.state, mentions, doc.rules.pronouns_of):
                    out.extend(self._triple(doc, chunk, mh, mt, self._pid_of[pred], cast(float, self.w.towns), sa, sb, types, raised=raised))
            for m in mentions:
                if m.kind in ("named", "demonym"):
                    doc.named_at[m.entity] = (m.start, m.end)
            if not doc.lists:
                doc.together |= together_in(mentions)
                if len(doc.together) > _MAX_TOGETHER:  # the set is dropped: kept for 256 documents, it must stay small
                    doc.lists = True
                    doc.together = set()
            doc.seen_end = off + b
        out.extend(self._cross(doc, chunk, spans, sents, [m for m, _, _ in results]))
        towns = self._towns(doc, chunk, spans, [m for m, _, _ in results], raised)
        return _raised(out, raised) + towns

    def _read_by_rules(self, doc: _Doc, chunk: Chunk, cuts: list[tuple[int, int]], spans: list[tuple[int, int]]) -> dict[int, list[Triple]]:
        """The births, deaths, schools, spouses, citizenships and headquarters the rule extractor reads in this chunk (`cuts`: all its sentences),
        by the position in `spans` (the sentences read here) of the sentence each is read from; none when facts read
        by rule have no measured precision over the floor (`Weights.towns`). Each is stated in its sentence's turn
        (`rule_pairs`) at that precision, evidenced by its sentence; one the document has stated lower is raised to it."""
        p = self.w.towns
        if p is None or p < self.floor or not self._pid_of:
            return {}
        if doc.rules is None:
            doc.rules = RuleExtractor(max_sentence=self.max_sentence, predicates=rule_predicates(self._pid_of))
        return by_sentence(doc.rules.extract(chunk, spans=cuts), spans, chunk.start)

    def _cross(
        self, doc: _Doc, chunk: Chunk, spans: list[tuple[int, int]], sents: list[list[Token]], mentions: list[list[SentMention]]
    ) -> list[Triple]:
        """Facts between entities of this chunk that share no sentence of the document: the evidence is the
        passage from the first of the two sentences to the last (at most `max_sentence` characters)."""
        if doc.lists:
            return []
        words = [[t.text.lower() for t in tokens] for tokens in sents]
        ents = doc.state.entities
        types = {i: e.type for i, e in enumerate(ents)}
        out: list[Triple] = []
        found = score_cross(self.w, doc.state, mentions, words, doc.together, least=self.floor)
        if not found:
            return out
        for c in sorted(found, key=lambda c: -c.p):  # best first: a better-scored pair's object holds (`_triple`)
            if c.p < self.floor or c.pid not in self._pred:
                continue
            (a1, b1), (a2, b2) = spans[c.pair.h_sent], spans[c.pair.t_sent]
            start, end = chunk.start + min(a1, a2), chunk.start + max(b1, b2)
            if end - start <= self.max_sentence:
                out.extend(self._triple(doc, chunk, c.pair.h, c.pair.t, c.pid, c.p, start, end, types, inferred=True))
        return out

    def _towns(
        self, doc: _Doc, chunk: Chunk, spans: list[tuple[int, int]], mentions: list[list[SentMention]], raised: dict[tuple[str, str, str], float]
    ) -> list[Triple]:
        """A place of this chunk whose name is a town's or a region's, or says its kind ("Pulangi River":
        towns.town_pairs), located_in a country the chunk names that it lies in, at the precision measured for such
        facts (`Weights.towns`), when no better-scored fact says otherwise (`_triple`, read as inferred). The evidence
        is the passage from the place's first name in the chunk to the nearest naming of the country, as for a pair
        read across sentences.

        A town or a region of this chunk also lies in a country that only a chunk before it named (a long text names
        its country once, near its start): the evidence is then two selectors, the sentence that names the place and
        the earlier mention of the country (`_triple`'s `named_before`).

        Recorded in `raised`: the facts the document had stated already that a town fact of this chunk would state, with
        the town facts' precision, to raise where this chunk stated them lower (`_raised`): training's calibration chose
        the floor with each town fact at the better of its pair's own score and that precision (`train.stated`)."""
        p = self.w.towns
        if p is None or p < self.floor or "P131" not in self._pred:
            return []
        named: dict[int, list[tuple[int, SentMention]]] = {}
        for k, ms in enumerate(mentions):
            for m in ms:
                if m.kind in ("named", "demonym"):
                    named.setdefault(m.entity, []).append((k, m))
        ents = doc.state.entities
        # the towns are read only for a chunk that names a country, or follows one that did (most text about places
        # does; much does not)
        countries = country_names()
        here = [i for i in named if fold(ents[i].name) in countries]
        before = [i for i in doc.countries if i not in named]
        # an institution whose name holds a town's or a region's the chunk names lies in it, whether or not it names a country
        held = any(institution(ents[i].name) for i in named)
        if not here and not before and not held:
            return []
        order = list(named)
        towns = load_towns()
        entities = [(ents[i].name, ents[i].type) for i in order]
        pairs = town_pairs(towns, entities) if here or held else []
        # a town or a region of this chunk in a country named only before it (not a place named by its kind: which
        # one country is named is this chunk's question; nor an organisation, which a name places and the text does not)
        later = [
            (x, c)
            for x, c in (town_pairs(towns, entities + [(ents[i].name, ents[i].type) for i in before]) if before else [])
            if x < len(order) <= c and entities[x][1] == "LOC" and towns.place(entities[x][0]) is not None
        ]
        types = {i: e.type for i, e in enumerate(ents)} if pairs or later else {}
        out: list[Triple] = []
        for x, c in pairs:
            k1, mx = named[order[x]][0]
            k2, mc = min(named[order[c]], key=lambda km: abs(km[0] - k1))
            (a1, b1), (a2, b2) = spans[k1], spans[k2]
            start, end = chunk.start + min(a1, a2), chunk.start + max(b1, b2)
            if end - start <= self.max_sentence:
                out.extend(self._triple(doc, chunk, mx, mc, "P131", p, start, end, types, inferred=True, raised=raised))
        for x, c in later:
            k1, mx = named[order[x]][0]
            a1, b1 = spans[k1]
            earlier, mc = doc.countries[before[c - len(order)]]
            out.extend(
                self._triple(
                    doc, chunk, mx, mc, "P131", p, chunk.start + a1, chunk.start + b1, types, inferred=True, named_before=earlier, raised=raised
                )
            )
        for i in here:
            doc.countries[i] = (chunk, named[i][-1][1])
        return out

    def _triple(
        self,
        doc: _Doc,
        chunk: Chunk,
        sh: SentMention,
        stl: SentMention,
        pid: str,
        p: float,
        sa: int,
        sb: int,
        types: dict[int, str],
        inferred: bool = False,
        named_before: Chunk | None = None,
        raised: dict[tuple[str, str, str], float] | None = None,
    ) -> list[Triple]:
        """The triple of a pair scored for a property, evidenced by doc.text[sa:sb] (and by the antecedent's
        mention when a side was a pronoun or nominal); none when the document has stated it already, nor when it
        was read across sentences (`inferred`) or with the topic unnamed and gives a subject a second object of
        what a subject has one of (`_one_object`): a place lies in one country, a person was born in one place,
        and a reading of two sentences or of an unnamed topic does not contradict what the document has stated
        (it had stored "Tom Becker born_in Hamburg" from "Anna Weiss was born in Hamburg" in an article about a
        man born in Lyon).

        `named_before`: the chunk, before this one, in which the object `stl` was named (a town of this chunk in a
        country named there, `_towns`); the triple then comes twice, with doc.text[sa:sb] (the subject's sentence) and
        with that mention of the object.

        `raised`: where a fact the document has stated already is recorded with this score (`_towns`)."""
        st = doc.state
        pred, inverse = self._pred[pid]
        h, t = (stl, sh) if inverse else (sh, stl)
        eh, et = st.entities[h.entity], st.entities[t.entity]
        start = sa
        if "implicit" in (h.kind, t.kind):
            # the topic is not named in this sentence: the evidence reaches back to its latest mention,
            # which must lie in this chunk so that the span holds the name it stands for
            topic_at = doc.named_at.get(h.entity if h.kind == "implicit" else t.entity)
            if topic_at is None or topic_at[0] < chunk.start:
                return []
            start = topic_at[0]
        nh, nt = _named(eh.name, types[h.entity]), _named(et.name, types[t.entity])
        key = (nh, pred, nt)
        hs, ho = self.hints.get(pred, (None, None))
        if key in doc.emitted and raised is not None:
            raised[key] = max(p, raised.get(key, 0.0))
        if key in doc.emitted or nh == nt or (pred == "located_in" and not _may_lie_in(nh, nt)) or _out_of_range(nt, ho):
            return []
        if inferred and pred == "located_in" and _placed_elsewhere(nh, nt, doc.placed.get(nh, ())):
            return []
        says = _SAYS.get(pred)
        if says is not None:
            sentence = chunk.text[sa - chunk.start : sb - chunk.start]
            if not (says.search(sentence) or _YEAR_IN_BRACKETS.search(sentence)):
                return []
            if not inferred and t.kind != "implicit" and sa <= t.start and said_of_the_other(pred, sentence, t.start - sa, t.end - sa):
                return []
        if (one := _one_object(pred, nt)) is not None:
            objects = doc.held.setdefault((nh, one), set())
            if objects and not any(_one_of(nt, o) for o in objects) and (inferred or "implicit" in (h.kind, t.kind)):
                return []
            objects.add(nt)
        doc.emitted.add(key)
        if pred == "located_in" and (code := _table_code(nt)) is not None:
            doc.placed.setdefault(nh, set()).add(code)
        # the types the entities had at this sentence (the batch has read the chunk's later sentences already)
        self.entity_types[nh] = self._class(nh, types[h.entity], hs)
        self.entity_types[nt] = self._class(nt, types[t.entity], ho)
        if len(self.entity_types) > 200_000:
            self.entity_types.clear()

        def surface(m: SentMention) -> str:
            a, b = doc.named_at.get(m.entity, (-1, -1)) if m.kind == "implicit" else (m.start, m.end)
            return chunk.text[a - chunk.start : b - chunk.start] if chunk.start <= a < b <= chunk.end else m.surface

        surf_h, surf_t = surface(h), surface(t)
        score = round(p, 4)
        # valid time: the date of a birth or death in the clause that holds both mentions (none when the topic
        # stands unnamed for one); other relations' clause dates date the sentence's event as often as the relation
        valid = None
        if pred in _DATED and "implicit" not in (h.kind, t.kind):
            valid = clause_validity(chunk.text[sa - chunk.start : sb - chunk.start], (h.start - sa, h.end - sa), (t.start - sa, t.end - sa))
        if named_before is not None:
            # `stl` was named in the earlier chunk: each selector quotes the side it stands for
            first = (surf_h, "", h.kind, "") if stl is t else ("", surf_t, "", t.kind)
            second = ("", stl.surface, "", "antecedent") if stl is t else (stl.surface, "", "antecedent", "")
            self._note(chunk.doc_id, start, sb, key, first)
            self._note(chunk.doc_id, stl.start, stl.end, key, second)
            return [Triple(nh, pred, nt, chunk, score, valid, start, sb), Triple(nh, pred, nt, named_before, score, valid, stl.start, stl.end)]
        self._note(chunk.doc_id, start, sb, key, (surf_h, surf_t, h.kind, t.kind))
        out = [Triple(nh, pred, nt, chunk, score, valid, start, sb)]
        # a subject or object read from a pronoun or nominal gets a second selector: the antecedent's
        # mention, so the evidence for the link is kept beside the sentence that states the relation
        for m, side in ((h, 0), (t, 1)):
            at = doc.named_at.get(m.entity) if m.kind in ("pron", "nominal") else None
            if at is not None and chunk.start <= at[0] and at[1] <= sa:
                name = chunk.text[at[0] - chunk.start : at[1] - chunk.start]
                self._note(chunk.doc_id, at[0], at[1], key, (name, "", "antecedent", "") if side == 0 else ("", name, "", "antecedent"))
                out.append(Triple(nh, pred, nt, chunk, score, valid, at[0], at[1]))
        return out

    def _note(self, doc_id: str, start: int, end: int, key: tuple[str, str, str], rec: tuple) -> None:
        self.surfaces[(doc_id, start, end, *key)] = rec
        while len(self.surfaces) > 100_000:
            self.surfaces.popitem(last=False)

    @staticmethod
    def _code_regions(doc: _Doc, text: str) -> list[tuple[int, int]]:
        """Markdown fenced blocks (carried across chunks) and HTML <pre>/<code> elements of this chunk."""
        regions: list[tuple[int, int]] = [(m.start(), m.end()) for m in _CODE_TAG.finditer(text)]
        open_at = 0 if doc.in_fence else None
        for m in _FENCE.finditer(text):
            if open_at is None:
                open_at = m.start()
            else:
                regions.append((open_at, text.find("\n", m.end()) % (len(text) + 1) or len(text)))
                open_at = None
        if open_at is not None:
            regions.append((open_at, len(text)))
        doc.in_fence = open_at is not None
        return regions


@lru_cache(maxsize=4)
def _cached_weights(directory: str) -> Weights:
    return Weights.load(directory)
