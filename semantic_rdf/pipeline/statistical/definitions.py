"""A sentence that defines the name it opens with ("Goodooga is a village in …"): the kind of thing it says the
name is, read from the head noun after "is a", and the clause that says where it lies. The document's state
types an entity by it; the pair features read the clause.
"""

from __future__ import annotations

from semantic_rdf.pipeline.statistical.mentions import SentenceMemo, SentMention

__all__ = ["NOMINALS", "KIND_NOUNS", "definition", "definition_of", "in_definition"]


# definite nominals and the entity type they refer back to
NOMINALS = {
    **dict.fromkeys(
        "company firm band group team club university college school party newspaper magazine "
        "label organization organisation agency corporation airline network".split(),
        "ORG",
    ),
    **dict.fromkeys("album film movie song single novel book series game show opera play episode single poem painting magazine".split(), "MISC"),
    **dict.fromkeys("city town village river municipality county district region province island lake station church".split(), "LOC"),
}
# the head noun of a definition ("Goodooga is a village in …", "Pointr is a British technology company") -> the type
# it gives the name defined. Not the nouns that define things of several types: a "group", "series" or "network"
# of anything, a "community" online or of nuns, a "bank" of sand, a "player" of media, a "pilot" episode, a string
# "quartet" (a work), a "broadcaster", "museum", "producer" or "publisher" (a person or a firm), "a model for"
KIND_NOUNS = {
    **{w: typ for w, typ in NOMINALS.items() if w not in ("group", "series", "network")},
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
    after "is a"/"was the" (`_head_noun`), read in `KIND_NOUNS`. None when the sentence does not open with the name
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
    (joined by "and", "or", a comma) that `KIND_NOUNS` lists, the last such one, before a word that ends the phrase
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
    kind = KIND_NOUNS.get(w)
    return (kind, j) if kind else None


def in_definition(words: list[str], head: int, t: int, mentions: list[SentMention]) -> bool:
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
