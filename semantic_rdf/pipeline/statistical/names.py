"""A tagged span read as a name: its clean text, its other written forms, and the words of the sentence the
tagger ran into it (a role, a title, a sentence's opening word, honours after it), which are no part of it;
spans that name nothing a fact can be about; a name's "also known as".
"""

from __future__ import annotations

import re
from functools import lru_cache

from semantic_rdf.core.identity import fold as _fold_uncached
from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.pipeline.extract import INITIALISM_END, NAME_PARTICLES
from semantic_rdf.pipeline.statistical.definitions import KIND_NOUNS, NOMINALS
from semantic_rdf.pipeline.statistical.mentions import ENTITY_TYPES
from semantic_rdf.pipeline.statistical.text import Token, latin
from semantic_rdf.pipeline.statistical.towns import canonical_country

__all__ = [
    "fold",
    "clean_name",
    "name_forms",
    "name_key",
    "span_text",
    "not_a_name",
    "role_split",
    "name_read",
    "without_opening",
    "without_title",
    "without_postnominals",
    "without_weekday",
    "before_known_as",
    "initials_and_surname",
    "other_script",
    "KIN_GROUPS",
]


_LEAD_STRIP = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
# each run is tried from its first character only, and never given back: linear in the span's length (a run tried from
# each of its characters was quadratic, tests/test_linear_time.py)
_TRAIL_STRIP = re.compile(r"(?:(?<!\s)\s*+['’]s|(?<![\s,;:.!?\"”’])[\s,;:.!?\"”’]++)$")
# quotes, angle quotes, markup and list marks a tagged span can take in at either end ("<Tom Becker>", "«Roma»")
_EDGE_MARKS = '"“”„«»‹›<>*_#|•·'


# fold is pure and called for every mention and word of a name: a cache of recent names saves the regexes
fold = lru_cache(maxsize=65536)(_fold_uncached)


# the same for a quoted nickname: the blanks before a quote from their first, the nickname ending in no blank (a nickname of
# blanks alone is none)
_NICKNAME = re.compile(r"(?<!\s)\s*+[\"“”]\s*+([^\"“”]*?[^\s\"“”])\s*+[\"“”]\s*")


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
KIN_GROUPS = frozenset("family families brothers sisters dynasty clan house".split())
# "also known as", "better known by her pseudonym": read backwards from the other name (`before_known_as`)
_KNOWN_AS_ADVERBS = frozenset("also better more most commonly popularly professionally formerly locally simply sometimes often usually".split())
_KNOWN_BY = frozenset("pseudonym nickname name stage pen ring".split())
_KNOWN_AS_REACH = 48  # tokens read back from an other name: a birth-date bracket and the phrase fit


def other_script(word: str) -> bool:
    """Whether a word has letters and none of them Latin ("一葉", "Москва"; not "Ichiyō", "Łódź")."""
    letters = [ch for ch in word if ch.isalpha()]
    return bool(letters) and not any(latin(ch) for ch in letters)


def initials_and_surname(tokens: list[Token], a: int, b: int) -> bool:
    """Whether tokens a..b are a person's initials and a surname ("N S Andres", "J. K. Rowling", "J. Smith"): each
    but the last one capital letter ("A", "I", "O" are words: "A Coruña"), two of them or each with its full stop
    (one bare letter names a unit: "X Corps", "B Division"), the last a capitalised word.

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> names = ["N S Andres", "J. K. Rowling", "J. Smith", "A Coruña", "U.S. Army", "X Corps", "B Division"]
    >>> [initials_and_surname(t, 0, len(t)) for t in map(tokenize, names)]
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


def without_opening(tokens: list[Token], a: int, b: int, typ: str) -> int:
    """The start of a name after words of the sentence the tagger ran into it: the pronoun "I" and the lower-case words
    after it up to a name's particle or a word with a capital ("… when I entered Trinity College", "I met van Gogh", "I
    joined eBay"), a question's first word alone ("Do museum labels …?"; not "Can was arrested in Istanbul", Can a
    given name), or a conjunction or an adverb that opens the sentence ("Unlike Hemingway"; a preposition only before a
    person's name that ends at a comma or a possessive: "In Bukowski's novels", not "Under Armour's shoes"); `b`
    (nothing left) when the span is only those. A title keeps its words: between quotes ("\"I Got a Woman\""), or what the
    tagger typed a work or an event (MISC: the Italian article of "I due Foscari").

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> t = tokenize("when I entered Trinity College")
    >>> without_opening(t, 1, 5, "ORG"), without_opening(tokenize("I met van Gogh"), 0, 4, "PER")
    (3, 2)
    >>> without_opening(tokenize("I re-entered eBay"), 0, 3, "ORG"), without_opening(tokenize("I due Foscari"), 0, 3, "MISC")
    (2, 0)
    >>> without_opening(tokenize("Do museum labels help?"), 0, 1, "PER"), without_opening(tokenize("Do labels help"), 0, 1, "PER")
    (1, 0)
    >>> without_opening(tokenize('"I Got a Woman" is a song'), 1, 5, "PER"), without_opening(tokenize('"No," I told Ann'), 4, 7, "PER")
    (1, 6)
    >>> without_opening(tokenize("Unlike Hemingway, he wrote"), 0, 2, "LOC"), without_opening(tokenize("In Time"), 0, 2, "MISC")
    (1, 0)
    >>> without_opening(tokenize("In Bukowski's novels"), 0, 2, "PER"), without_opening(tokenize("Under Armour's shoes"), 0, 2, "ORG")
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
# "Vice-President Joe Biden", "Staff Sergeant Ty Carter", "Deputy Prime Minister Nick Clegg"; `without_title`). Not the
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
_PERSON_ROLES = frozenset(w for w, typ in KIND_NOUNS.items() if typ == "PER") | frozenset(
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
    | frozenset(KIND_NOUNS)
    | frozenset(NOMINALS)
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


def role_split(tokens: list[Token], span: tuple[int, int, str, int | None]) -> list[tuple[int, int, str, int | None]]:
    """A tagged span without the sentence's words the tagger ran into it (`without_opening`, `_after_role`): the
    name after a role's, a kind's or a direction's word, a person's after a person's role, and before it the
    nationality, the country or the region that opens the span as a mention of its own: "Hungarian footballer Imre
    Puskás" is Hungary and the person Imre Puskás, "Florida group The Royal Guardsmen" Florida and the band; "Eskom
    chairperson Ben Ngubane" the person (a firm or a town before the role is left out: "Barcelona coach Pep Guardiola"
    names the club, not the city). A title between quotes stays whole, and
    so do the corpus's own spans (a gold entity) and spans of no entity type (a date, a number)."""
    a, b, typ, gold = span
    if gold is not None or typ not in ENTITY_TYPES:
        return [span]
    a = without_opening(tokens, a, b, typ)
    if b - a < 2:
        return [(a, b, typ, gold)] if b > a else []
    k = _after_role(tokens, a, b)
    if k == a or (0 < a and b < len(tokens) and tokens[a - 1].text in _QUOTES and tokens[b].text in _QUOTES):
        return [(a, b, typ, gold)]
    out: list[tuple[int, int, str, int | None]] = []
    before = span_text(tokens, a, k - 1) if k - 1 > a else ""
    if before and (gz.country_of_demonym(before) or gz.lexicon_class(before) in ("Country", "Region") or canonical_country(before)):
        out.append((a, k - 1, "LOC", None))
    out.append((k, b, "PER" if tokens[k - 1].text in _PERSON_ROLES else typ, None))
    return out


def name_read(tokens: list[Token], a: int, b: int, typ: str) -> str:
    """The name a tagged span gives, as `DocState.add_sentence` reads it: the last part `role_split` leaves, without a
    person's title ("Sir Tom Jones" is "Tom Jones", "Welsh singer Tom Jones" too)."""
    got = role_split(tokens, (a, b, typ, None))
    if not got:
        return span_text(tokens, a, b)
    a, b, typ, _ = got[-1]
    return span_text(tokens, without_title(tokens, a, b) if typ == "PER" else a, b)


def without_title(tokens: list[Token], a: int, b: int) -> int:
    """The start of a person's name after the titles or ranks that open it: the last listed title of the span's opening
    run of capitalised words ("General Pervez Musharraf", "Staff Sergeant Ty Carter", "Deputy Prime Minister Nick
    Clegg", "Lieutenant General Sir John Moore", "Gen. David Petraeus", "Queen Elizabeth II"), when two words of name
    follow it ("Lord Palmerston", "Lady Gaga" and "Dr. Dre" stay whole, and so do "Shah Rukh Khan", "Lady Bird Johnson"
    and "Earl Thomas III": those titles are given names too, and a title only before a ruler's number).

    >>> from semantic_rdf.pipeline.statistical.text import tokenize
    >>> t = tokenize("Petty Officer John Leake")
    >>> without_title(t, 0, 4), without_title(tokenize("Lady Gaga"), 0, 2), without_title(tokenize("Joe Biden"), 0, 2)
    (2, 0, 0)
    >>> without_title(tokenize("Dr. Ada Lovelace"), 0, 4), without_title(tokenize("Dr. Dre"), 0, 3)
    (2, 0)
    >>> without_title(tokenize("Lieutenant General Sir John Moore"), 0, 5), without_title(tokenize("Shah Rukh Khan"), 0, 3)
    (3, 0)
    >>> without_title(tokenize("Queen Elizabeth II"), 0, 3), without_title(tokenize("Prince V. Jones"), 0, 4)
    (1, 0)
    >>> without_title(tokenize("Gen. David Petraeus"), 0, 4), without_title(tokenize("Amartya Sen Smith"), 0, 3)
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


def without_postnominals(tokens: list[Token], a: int, b: int) -> int:
    """The end of a person's name before the honours written after it (two words of name are kept at least)."""
    while b - a > 2 and tokens[b - 1].text in _POSTNOMINALS:
        b -= 1
    return b


def without_weekday(tokens: list[Token], a: int, b: int) -> int:
    """The end of a person's name before a date's day of the week the tagger ran into it ("Aner Shalev" over the
    dateline "Wednesday, September 19, 2007"); not a name's own last word ("William Ashley Sunday was …")."""
    if b - a > 2 and tokens[b - 1].text in _WEEKDAYS and b < len(tokens) and tokens[b].text == ",":
        return b - 1
    return b


def before_known_as(tokens: list[Token], a: int) -> int:
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


def name_key(surface: str) -> str:
    """The key `DocState.by_key` knows a written name by: its clean form, folded."""
    return fold(clean_name(surface) or surface)


def span_text(tokens: list[Token], a: int, b: int) -> str:
    """The text of tokens a..b as written (the document's own spacing is not known here: one space)."""
    parts = [tokens[a].text]
    for j in range(a + 1, b):
        parts.append(("" if tokens[j].start == tokens[j - 1].end else " ") + tokens[j].text)
    return "".join(parts)
