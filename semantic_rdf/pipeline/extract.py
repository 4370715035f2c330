"""The rule extractor: a chunk of text in, taxonomy triples out, each with its sentence as evidence.

`RuleExtractor` is deterministic and offline: entity shapes (capitalised names in any script
that has case, a user gazetteer, simple pronoun resolution within a document) and relation
patterns that map English phrasings to the 53 taxonomy predicates, each with its own
confidence. Its triples pass `screening.screen` (schema, then the floor) and take their valid time
from `dates`; the model-backed extractor is model_extract.py.

Offsets: every Triple carries its chunk and `start`/`end` = document offsets of the sentence it
was read from, so ``doc.text[t.start:t.end]`` is that sentence.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import AbstractSet, Callable, Iterable, Mapping, Sequence, overload

from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.values import MAX_NAME, Chunk, Triple
from semantic_rdf.pipeline.dates import MONTH_RX, sentence_validity
from semantic_rdf.pipeline.screening import check_chunk, check_floor, screen

__all__ = [
    "RuleExtractor",
    "Rule",
    "rules",
    "predicate_hints",
    "sentence_spans",
    "make_rule_extractor",
    "make_no_extractor",
    "school_name",
    "NAME_PARTICLES",
]


_project_sentence_spans: Callable[[str], list[tuple[int, int]]] | None
try:  # the project's splitter (abbreviations, initials, CJK); a small fallback keeps this module standalone
    from semantic_rdf.pipeline.split import sentence_spans as _project_sentence_spans
except ImportError:  # pragma: no cover - only without split.py
    _project_sentence_spans = None

_FALLBACK_END = re.compile(r"(?<![.!?])[.!?]++[\"')\]\u2019\u201d]*+\s++(?=[\"'(\[\u2018\u201c]?[^\W\d_])|\n\s*\n")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentences of `text` as trimmed (start, end) offsets."""
    if _project_sentence_spans is not None:
        return _project_sentence_spans(text)
    out, a = [], 0
    for m in _FALLBACK_END.finditer(text):
        out.append((a, m.end()))
        a = m.end()
    out.append((a, len(text)))
    trimmed = []
    for s, e in out:
        seg = text[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            trimmed.append((s + ls, s + rs))
    return trimmed


# ------------------------------------------------------------------ character classes


def _trie(words: Iterable[str]) -> str:
    """An alternation of `words` as a prefix tree, so the regex engine tests one branch per letter."""
    tree: dict = {}
    for w in set(words):
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = []
        end = "" in node
        for ch in sorted(k for k in node if k):
            alts.append(re.escape(ch) + emit(node[ch]))
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 and not end else "(?:" + "|".join(alts) + ")"
        return body + ("?" if end else "")

    return "(?:" + emit(tree) + ")"


# Capital letters: ASCII, Latin-1, Latin Extended-A/B and Additional, Greek, Cyrillic, Armenian, Georgian.
# The extended Latin and Cyrillic blocks interleave upper and lower case, so whole blocks are taken: a
# lower-case letter from them opening a word is rare, and one short class keeps every pattern small
# (the exact Lu/Lt set has ~900 ranges and made compiling the rules take seconds).
_UP = "[A-Z\u00c0-\u00d6\u00d8-\u00de\u0100-\u024f\u0386-\u03ab\u03cf\u0400-\u042f\u0460-\u052f\u0531-\u0556\u10a0-\u10c5\u1e00-\u1eff]"

_STOPSTART_WORDS = """The A An In On At After Before During Later Then He She It They We I You His Her Its Their
Our My Your This That These Those When While Although Though Because Since As For From With By Of To And But Or
If Born Together Fleeing Throughout Nobody Several Many Some Did Does Do Was Were Is Are Has Have Had Also However
Still Yet There Here Who What Where Why How Which Both Each Every All No Not Most Much More Few Any Such Other
Another Only Even Just Neither Nor Either Whether Unless Until Whereas Perhaps Indeed Thus Hence Therefore Instead
Otherwise So Now Never Always Often Sometimes Usually Once Meanwhile Nevertheless Moreover Furthermore Today
Yesterday Tomorrow Earlier Afterwards Eventually Finally Initially Originally Like Unlike Among Between Under Over
Through Without Within Upon Into Toward Towards Against Around About Above Below Behind Beside Besides Beyond Near
Across Along Amid Except Via Despite Following Everyone Someone Anyone Nothing Everything Something Will Would
Can Could Should May Might Must Shall Being Having Whose Whom Let Please Yes Okay OK
January February March April June July August September October November December
Monday Tuesday Wednesday Thursday Friday Saturday Sunday""".split()
_STOPSTART = r"(?!" + _trie(_STOPSTART_WORDS) + r"(?![^\W_]|['’-]))"

_CAPWORD = _UP + r"(?:[^\W_]|[-‐](?=[^\W_])|–(?=" + _UP + r")|['’](?!s\b)(?=[^\W\d_]))*(?:['’]s(?=\s+" + _UP + r"))?"
_INITIAL = _UP + r"\."
_NUMTOK = r"(?!(?:1\d|20)\d\d\b)\d+\b"
# a middle initial ("Charles J. Fillmore", "John F. X. Smith"): after it, more initials and then one capitalised
# word that is no sentence opener ("The", "He") and no name's first word ("Note G. Charles Babbage designed …" is
# two names in two sentences the splitter could not tell apart). Tried before the capital alone, which would end
# the name at the initial's full stop ("Charles J")
_MIDDLE = rf"{_INITIAL}(?=(?:[^\S\n]+{_INITIAL})*[^\S\n]+{_STOPSTART}{_CAPWORD}(?![^\W_])(?![^\S\n]+{_UP}))"
# "St. Louis", "Mt. Everest", "Ft. Worth": the abbreviation opens the name, as an initial does (else "Chuck Berry was
# born in St. Louis" gave `born_in St`)
_ABBR = r"(?:St|Mt|Ft)\."
_WORDSEQ = rf"(?:(?:{_INITIAL}|{_ABBR})[^\S\n]*){{0,3}}{_CAPWORD}(?:[^\S\n]+(?:{_MIDDLE}|{_CAPWORD}|{_NUMTOK})){{0,7}}"
_CONN = (
    r"(?:of(?:[^\S\n]+the)?|de(?:[^\S\n]+la)?|du|des|da|das|do|dos|di|del|della|der|den|van(?:[^\S\n]+de[nr]?)?"
    r"|von(?:[^\S\n]+der)?|la|le|y|bin|ibn|al|el|ten|ter|zu|af|av)"
)
_AWARDCONN = (
    r"(?:(?:(?<=Prize)|(?<=Award)|(?<=Medal)|(?<=Institute)|(?<=Society)|(?<=Centre)|(?<=Center)"
    r"|(?<=Foundation)|(?<=School)|(?<=Trophy))[^\S\n]+for|(?:(?<=Prize)|(?<=Medal))[^\S\n]+in)[^\S\n]+"
)
_NAME_CORE = rf"(?<![\w\ue000])(?={_UP}){_STOPSTART}{_WORDSEQ}(?:[^\S\n]+{_CONN}[^\S\n]+{_WORDSEQ}|{_AWARDCONN}{_WORDSEQ}){{0,3}}"


# The same pattern in a form the regex engine scans fast: it opens on the capital itself (a character class,
# which `re` skips to at C speed) instead of on look-arounds tried at every offset. The look-behind moves
# past that capital, the stop words are checked from it, and the first word of _WORDSEQ continues after it
# (an initial's dot, or the rest of a capitalised word) in the same order of preference as the original.
def _stop_after_capital(words: Sequence[str]) -> str:
    by_first: dict[str, list[str]] = {}
    for w in words:
        by_first.setdefault(w[0], []).append(w[1:])
    alts = []
    for c in sorted(by_first):
        rests = [r for r in by_first[c] if r]
        body = _trie(rests) if rests else ""
        if rests and len(rests) < len(by_first[c]):
            body += "?"
        alts.append(f"(?<={re.escape(c)}){body}")
    return r"(?!(?:" + "|".join(alts) + r")(?![^\W_]|['’-]))"


# Letters are taken a run at a time ([^\W_]+ inside the loop, not one letter per turn): the same characters,
# because nothing after a name's words is mandatory, so the engine never backtracks into them.
_CAPWORD_FAST = _CAPWORD.replace(r"(?:[^\W_]|[-‐]", r"(?:[^\W_]+|[-‐]", 1)
_CAPREST = _CAPWORD_FAST[len(_UP) :]
_WORDSEQ_FAST = _WORDSEQ.replace(_CAPWORD, _CAPWORD_FAST)
_WORDSEQ_AFTER_CAPITAL = (
    rf"(?:\.[^\S\n]*(?:(?:{_INITIAL}|{_ABBR})[^\S\n]*){{0,2}}{_CAPWORD_FAST}"
    rf"|(?<=[SMF])t\.[^\S\n]*(?:(?:{_INITIAL}|{_ABBR})[^\S\n]*){{0,2}}{_CAPWORD_FAST}|{_CAPREST})"
    rf"(?:[^\S\n]+(?:{_MIDDLE}|{_CAPWORD_FAST}|{_NUMTOK})){{0,7}}"
)
_NAME_FAST = (
    rf"{_UP}(?<![\w\ue000][\s\S]){_stop_after_capital(_STOPSTART_WORDS)}{_WORDSEQ_AFTER_CAPITAL}"
    # each joining branch first checks, cheaply, what it needs next (a lower-case particle; "for"/"in")
    rf"(?:(?=[^\S\n]+[a-z])[^\S\n]+{_CONN}[^\S\n]+{_WORDSEQ_FAST}"
    rf"|(?=[^\S\n]+(?:for|in)[^\S\n]){_AWARDCONN}{_WORDSEQ_FAST}){{0,3}}"
)

# Rules never see raw names: each candidate sentence is first rewritten with every name (and gazetteer
# entry) replaced by a token \ue000<i>\ue001, so a slot is a tiny pattern and NAME is matched once.
_TOK = "\ue000\\d+\ue001"
_TOK_RX = re.compile(_TOK)

_NPSTOP = """a an the and or but nor in on at by for from with without to into onto upon of as while when where
which who whom whose that this these those was were is are be been being has have had do does did will would
can could shall should may might must not never also later then after before during since until till than so
because although though if whereas he she it they we i you his her its their our my your him them us me
there here once around about until near over under between among through across along against toward towards
via per jointly together whereby thus hence heavily deeply closely widely first
The A An He She It They We I You His Her Its Their In On At""".split()
_NPW = r"(?:" + _TOK + r"|(?<![\w\ue000])(?=[^\W_])(?!" + _trie(_NPSTOP) + r"(?![\w'’-]))[^\W_](?:[\w'’]|[-–](?=\w))*)"
_NP = rf"{_NPW}(?:\s+(?:of\s+(?:the\s+)?)?{_NPW}){{0,5}}"
_NPLOW = r"(?=[^\W\d_])(?!" + _UP + r")" + _NP  # a noun phrase that starts lower-case: "physics", "gas giant"
_TITLE = rf"(?:On|A|An|The)\s+(?:the\s+)?{_TOK}"
_DETL = r"(?:(?:the|a|an|his|her|their|its)\s+)?"
_DETC = r"(?:(?:[Tt]he|[Aa]n?|[Hh]is|[Hh]er|[Tt]heir|[Ii]ts)\s+)?"
_ROLE_NOUNS = """composer painter poet writer novelist author physicist chemist mathematician scientist philosopher
architect engineer inventor artist singer actor actress character series novel book film company firm city
town village river country planet element class genus species band group magazine journal newspaper song album
opera play poem painting program programme language game ship aircraft car machine device satellite spacecraft
mission organisation organization institute theorem brand label studio airline railway manufacturer publisher
ensemble orchestra team club""".split()
_ROLESKIP = r"(?:(?=[a-z]+(?:\s+house)?\s+\ue000)(?:fashion\s+house|" + _trie(_ROLE_NOUNS) + r")\s+)?"
_PRON = r"(?:[Hh]e|[Ss]he|[Ii]t|[Tt]hey)\b"
_POSS_PRON = r"(?:[Hh]is|[Hh]er|[Tt]heir|[Ii]ts)\b"


def _listof(item: str) -> str:
    return rf"{item}(?:(?:\s*,\s*{item}){{0,8}}\s*,?\s+(?:and|&)\s+{item})?"


_ADV_WORDS = """also later then first eventually subsequently soon finally initially originally closely jointly
famously reportedly independently ultimately once briefly often frequently widely long still already formally
officially partly largely mainly heavily deeply together actually successfully effectively reluctantly
secretly quickly permanently again""".split()
_MACROS = {
    "AUX": r"\s+(?:was|were|is|are|has\s+been|have\s+been|had\s+been|had|has|have|became|becomes|become|remained|remains)",
    "ADV": r"(?:\s+" + _trie(_ADV_WORDS) + r"\b){0,3}",
    "FILL": r"(?:(?!(?:in|at|on|of|for|by|with|to|from|near|and|or|as)\b)[a-z]+\s+){0,2}?",
    "DET": _DETL,
    "YR": r"(?:\s+in\s+\d{4})?",
}
_AP = r"(?:\s*\([^()]{0,60}\)|\s*,\s*(?:the|a|an)\s+[^,;()]{1,60}?,)?(?:\s*,?\s+who)?"

# A noun-phrase subject starts a clause: sentence start, after punctuation, a conjunction or a year,
# at an article or at a name. Without this every word would be tried as a start (slow, and imprecise).
_NPSTART = (
    r"(?:^|(?<=[,;:(])|(?<=[,;:(]\s)|(?<=\band\s)|(?<=\bbut\s)|(?<=\bthat\s)|(?<=\bwhich\s)"
    r"|(?<=\bwhile\s)|(?<=\d\s)|(?=(?:the|a|an)\s)|(?=\ue000))"
)

_SHAPES = {
    # shape -> (pattern with {g} for the group, is_list)
    "agent": (rf"(?P<{{g}}>{_TOK}|{_PRON}){_AP}", False),
    "name": (rf"{_ROLESKIP}(?P<{{g}}>{_TOK})", False),
    "names": (rf"{_ROLESKIP}(?P<{{g}}>{_listof(_TOK)})", True),
    "any": (rf"{_DETL}{_ROLESKIP}(?P<{{g}}>{_TITLE}|{_NP})", False),
    "anys": (rf"{_DETL}{_ROLESKIP}(?P<{{g}}>{_listof('(?:' + _TITLE + '|' + _DETL + _NP + ')')})", True),
    "np": (rf"{_NPSTART}{_DETC}{_ROLESKIP}(?P<{{g}}>{_NP})", False),
    "nps": (rf"{_NPSTART}{_DETC}{_ROLESKIP}(?P<{{g}}>{_listof('(?:' + _DETL + _NP + ')')})", True),
    "low": (rf"{_DETL}(?P<{{g}}>{_NPLOW})", False),
    "lows": (rf"{_DETL}(?P<{{g}}>{_listof('(?:' + _DETL + _NPLOW + ')')})", True),
    "poss": (rf"(?P<{{g}}>{_TOK}(?=['’]s\b)|{_POSS_PRON})(?:['’]s)?", False),
    "demonym": (rf"(?P<{{g}}>{_TOK})", False),
}
# shapes that are a NAME plus a check on the matched text
_ORG_WORDS = (
    r"Club|Society|Party|Academy|Association|Union|League|Guild|Order|Circle|Group|Band|Team|Orchestra|"
    r"Church|Council|Committee|Movement|Brotherhood|Sisterhood|Federation|Network|Alliance|Congress|"
    r"Institute|Institution|Foundation|Assembly|Parliament|Senate|Board|Lodge|Fraternity|Sorority|Choir"
)
_CHECKS = {
    "award": re.compile(
        r"\b(?:Prize|Award|Awards|Medal|Trophy|Cup|Oscar|Emmy|Grammy|Fellowship|Cross|Order|Star|"
        r"Laureate|Honou?r|Scholarship|Grant|Chair)\b"
    ),
    "org": re.compile(rf"\b(?:{_ORG_WORDS})\b"),
    "nonorg": re.compile(rf"^(?!.*\b(?:{_ORG_WORDS})\b)"),
    "edu": re.compile(
        r"\b(?:University|Universität|Université|Universidad|Università|College|School|Institute|"
        r"Academy|Gymnasium|Lyceum|Lycée|Polytechnic|Conservatory|Conservatoire|Seminary|ETH|MIT)\b"
    ),
    "company": re.compile(
        r"\b(?:Company|Corporation|Corp|Inc|Ltd|LLC|GmbH|AG|plc|Laboratories|Labs|Bank|Airlines|"
        r"Motors|Industries|Systems|Technologies|Agency|Studios?|Records|Press)\b"
    ),
}
# a nationality word as written ("French"; "Cuban-American" is none)
_CHECKS["nationality"] = re.compile("^(?:" + "|".join(sorted((re.escape(d) for d in gz.DEMONYMS), key=len, reverse=True)) + ")$")
for _k in _CHECKS:
    _SHAPES[_k] = _SHAPES["name"]


def school_name(name: str) -> bool:
    """Whether a name says it is a school's ("Lakefield College School", "University of Nigeria", "Conservatoire de
    Paris"): the rules' "attended" reads only such names, and the statistical extractor takes the rules' "studied at" only
    for them (the Louvre, the Bolshoi Ballet or Yellowstone, where one "studied", are no schools).

    >>> school_name("University of Nigeria"), school_name("British Museum")
    (True, False)
    """
    return _CHECKS["edu"].search(name) is not None


# A citizenship from a nationality word (docs/extraction.md, step 8): "Mark Harmsworth is an American politician", "a
# song by Italian singer Tiziano Ferro". The word must describe what a person is: the last word of its noun phrase a
# word for a person (`_PERSON_WORD`), where the words between join nothing (`_FUNCTION`: not "a professor of English",
# "the Russian army under Tsar Aleksei I") and the phrase ends (`_LAST_WORD`: "an American film director and writer" is
# a person, "an American film starring Tom Hanks" is not, nor "a band formed in 1986").
_FUNCTION = (
    r"(?:by|of|about|as|in|on|at|from|with|to|for|and|or|who|that|which|whose|under|after|before|over|against|between|"
    r"into|during|without|within|upon|among|than|like|near|the|is|are|was|were)\b"
)
# ... or goes on to say more of the person: "a Mexican painter known for", "an American author best remembered for"
_AFTER = (
    r"(?:known|best|better|active|originally|currently|perhaps|mostly|primarily|mainly|widely|also|now|once|formerly|"
    r"still|born|famous|noted|notable)\b"
)
_LAST_WORD = r"(?!\s+(?!" + _FUNCTION + r"|" + _AFTER + r"|[a-z]+(?:ed|ing|en)\b)[a-z])"
# words for a person: by their ending ("singer", "actor", "cellist", "politician", "actress", "president",
# "expatriate", "statesman", "socialite") or by name ...
_PERSON_NOUNS = """king queen leader officer master poet star chef monk nun pope saint general admiral captain bishop
priest cardinal emperor prince princess duke lord lady knight judge tycoon magnate sergeant lieutenant athlete model
entrepreneur diplomat architect gymnast pilot astronaut rabbi imam aristocrat personality celebrity coach referee
jockey heir figure spy critic host soprano tenor baritone contralto virtuoso playwright surgeon nurse cook monarch
sultan chief chieftain icon legend hero heroine idol martyr missionary revolutionary visionary secretary notary
mercenary luminary mystic guru""".split()
# ... and not these, which end so and are things ("the British destroyer HMS Cobra", "the American retailer Walmart",
# "the French department Dordogne", "the Japanese developer Square Enix", "a French former Alpine skier", "an American
# defense contractor", "a German sports car maker", "the Italian constructor Ferrari"), nor a word ending in -ment
_NOT_PERSONS = """destroyer cruiser carrier frigate tanker freighter liner trawler bomber retailer broadcaster
publisher distributor developer manufacturer automaker brewer insurer lender supplier provider operator exporter
importer theater theatre center centre computer server container reactor motor tractor monitor sector corridor river
border tower water paper order number letter character chapter quarter cluster register thriller blockbuster
bestseller trailer cover counter charter poster barrier harbor harbour manor mirror factor list playlist meridian
state estate senate climate consulate electorate protectorate emirate sultanate caliphate directorate conglomerate
syndicate primate business press express process congress fortress access address progress success former latter
other another further whether either neither never ever however later upper lower inner outer proper super together
rather contractor subcontractor maker grocer constructor best-seller website site suite satellite granite meteorite
elite""".split()
_PERSON_WORD = (
    r"(?!" + _FUNCTION + r"|" + _trie(_NOT_PERSONS) + r"s?\b|[a-z-]*ment\b)"
    r"(?:[a-z-]*(?:er|or|ist|ian|ess|ent|ate|man|woman|men|women|ite)|" + _trie(_PERSON_NOUNS) + r")s?\b"
)
# a word after a nationality word that makes it a language, a breed or a kind of thing: "an English teacher", "a
# German translator", "French horn player Dennis Brain", "Rex is a German shepherd", "Spanish flu survivor Mary Smith",
# "American history teacher John Smith", "Chinese restaurant owner"
_NOT_NATIONAL = (
    r"(?!\s+"
    + _trie(
        """teacher translator speaker scholar lecturer professor instructor tutor interpreter literature language medicine
horn shepherd setter terrier bulldog mastiff flu cuisine food speaking studies history art restaurant checkers car
garden cheese whiskey whisky measles border jiu-jitsu martial wine tea coffee furniture porcelain pottery antiques""".split()
    )
    + r"s?\b)"
)
# a word of a noun phrase that joins nothing; the phrase, after a nationality word, ends in a word for a person (a name
# or an "and" may stand between: "a French former Alpine skier", "an American film and television actress")
_WORD_OF = r"(?!" + _FUNCTION + r")[a-z][a-z-]*"
_OF_A_PERSON = r"(?=(?:\s+(?:" + _WORD_OF + r"|" + _TOK + r"|and(?=\s+[a-z]))){0,3}?\s+" + _PERSON_WORD + _LAST_WORD + ")"
# the words of the nationality words (`gazetteer.DEMONYMS`): a citizenship read from one is tried only where one is
_DEMONYM_WORDS = " ".join(sorted({w.lower() for d in gz.DEMONYMS for w in d.split()}))
# a lower-case word between a nationality word and the word for a person ("recording artist and songwriter"), not of
# what was done ("directed", "produced by") nor one that joins
_ROLE_WORD = _WORD_OF + r"(?<!ed)"
# the same after "married", not a word that opens a clause or a possessive ("married Anna while director …", "married off
# his daughter")
_SPOUSE_ROLE = r"(?!(?:his|her|their|its|off|despite|while|when|once|because|following|after|before|where|since|as)\b)" + _ROLE_WORD
# what a company or an association is called, where "based in" says where its headquarters are
_BASED_ORGS = """company companies corporation firm business manufacturer maker producer publisher label airline carrier bank
retailer chain organisation organization association federation society foundation charity agency conglomerate startup
start-up contractor developer studio broadcaster operator provider supplier distributor brewery institute trust
consultancy group""".split()
# the words of a noun phrase before its relative "who", none of which joins it to another: "a Danish film actor who"
# (not "the son of a baker who", "a friend and colleague who")
_NOUN_PHRASE = r"(?:(?:" + _TOK + r"|(?!(?:of|for|with|to|from|by|and|or|in|at|on|who|whose|which|that)\b)[\w'’-]++)\s++){1,4}?"

# A life's parenthesis after a name, as Wikipedia's first sentences write it: "Mehmet Çetingöz (born May 12, 1991 in
# Şanlıurfa, Turkey)", "Georg Jochmann (11 October 1874, in Liegnitz – 6 January 1915, in Berlin)", "Alberto Valenzuela
# Llanos (San Fernando, Chile, August 29, 1869 – Santiago, Chile, July 23, 1925)". Every quantifier over spaces here is
# possessive (*+, ++): a run of spaces is read one way only, so a long one costs linear time, not quadratic.
_DAY_MONTH = rf"(?:[0-3]?\d\s++(?:{MONTH_RX})\s++|(?:{MONTH_RX})\s++[0-3]?\d\s*+,?+\s*+)"  # "18 December ", "May 12, "
_CIRCA = r"(?:(?:c\.|ca\.|circa|about|before|after)\s*+)?"
_LIFE_YEAR = r"[12]?\d{3}(?!\d)(?:\s*+(?:BCE?|AD|CE|B\.C\.|A\.D\.)(?!\w))?"  # "106 BC" (an era is no name: `_ERAS`)
# a day, a month and a year in either order, a month and a year, or a year, perhaps "c." one
_DATE = _CIRCA + rf"(?:{_DAY_MONTH}|(?:{MONTH_RX})\s++)?" + _LIFE_YEAR
# the same, its year kept as group y (a birth's) or z (a death's): a life spans ten years or more, where a festival, a
# battle, a term of office or a title held is mostly dated within fewer ("Woodstock (August 15, 1969 – August 18, 1969
# in Bethel)", "John Smith (12 May 1990, Westminster – 3 June 1995)"; `RuleExtractor._from_match`)
_DATE_Y = _CIRCA + rf"(?:{_DAY_MONTH}|(?:{MONTH_RX})\s++)?(?P<y>" + _LIFE_YEAR + ")"
_DATE_Z = _CIRCA + rf"(?:{_DAY_MONTH}|(?:{MONTH_RX})\s++)?(?P<z>" + _LIFE_YEAR + ")"
# the month names: what the rules that read a life from its dates alone are tried for
_MONTH_WORDS = MONTH_RX.lower().replace("|", " ")
# the name, a maiden name ("Eva Bosáková-Hlaváčková, née Věchtová (…"), the parenthesis, and what a semicolon ends before
# the dates (another script's spelling, "IAST: …;"), which holds no date and no dash, nothing of the life itself
_SKIP = r"(?:[^()–—\d\ue000-]|" + _TOK + r"){0,80}?"
_LIFE = r"«s:name»(?:\s*+,\s*+née\s++" + _TOK + r")?\s*+\((?:" + _SKIP + r";\s*+)?"
# the same opening a sentence ("John Henry Dearle or J. H. Dearle (1859 in London – …"): a life read from dates and
# places alone, with no "born" or "died", is taken only there, where it is what the sentence is about ("The record is
# held by Usain Bolt (16 August 2009, Berlin)" is no birth)
_LIFE_OPENS = r"(?:(?<![\s\S])|(?<=^[\"“'(]))(?:" + _TOK + r"\s++or\s++)?" + _LIFE
_COMMA = r"\s*+,?+\s*+"
_AT = r"(?:(?:in|at)\s++)?"
_REGIONS = r"(?:\s*+,\s*+" + _TOK + r"){0,2}"  # "Bely, Tver Oblast, Russian Federation"
_DASH = r"\s*+[-–—]\s*+"
# the birth of a life's parenthesis with its place: "18 December 1931 in Mladá Boleslav", "San Fernando, Chile, August
# 29, 1869"; and without it
_BIRTH = r"(?:" + _TOK + _REGIONS + r"\s*+,\s*+)?" + _DATE_Y + r"(?:" + _COMMA + _AT + _TOK + _REGIONS + r")?"
_BIRTH_PLACED = r"(?=" + _TOK + r"|" + _DATE + _COMMA + _AT + _TOK + r")" + _BIRTH

_SLOT = re.compile(r"«(\w+)(?::(\w+))?»")

# ------------------------------------------------------------------ rules


@dataclass(frozen=True)
class Rule:
    """One relation pattern: English phrasing -> one taxonomy predicate, with its own confidence."""

    id: str
    predicate: str
    score: float
    triggers: tuple[str, ...]
    source: str  # the pattern with «role:shape» slots
    regex: re.Pattern[str] = field(compare=False, repr=False)
    lists: frozenset[str] = field(compare=False, repr=False)
    checks: tuple[tuple[str, str], ...] = field(compare=False, repr=False)
    demonyms: frozenset[str] = field(compare=False, repr=False)
    # what a sentence must hold for the pattern to have any chance (a prefilter; never changes a result):
    # names = mandatory slots only a name token fills; agents = mandatory slots a name or a pronoun fills;
    # opens_with_name = the pattern is anchored at the sentence start on a name token
    min_names: int = field(default=0, compare=False, repr=False)
    min_agents: int = field(default=0, compare=False, repr=False)
    opens_with_name: bool = field(default=False, compare=False, repr=False)
    # the pattern opens on an agent or possessive slot: a match can only start at a name token or a pronoun
    opens_with_agent: bool = field(default=False, compare=False, repr=False)
    extra_groups: tuple[str, ...] = field(default=(), compare=False, repr=False)  # named groups besides s and o


def _expand(source: str) -> tuple[str, set[str], list[tuple[str, str]], set[str]]:
    lists: set[str] = set()
    checks: list[tuple[str, str]] = []
    demonyms: set[str] = set()

    def sub(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        if b is None:
            return _AP if a == "AP" else _MACROS[a]
        pat, is_list = _SHAPES[b]
        if is_list:
            lists.add(a)
        if b in _CHECKS:
            checks.append((a, b))
        if b == "demonym":
            demonyms.add(a)
        return r"(?<![\w\ue000])" + pat.replace("{g}", a)

    return _SLOT.sub(sub, source), lists, checks, demonyms


# (predicate, score, triggers, pattern). Roles: s = subject, o = object, s2 = more subjects.
_RULE_SPECS: list[tuple[str, float, str, str]] = [
    # --- origin
    (
        "born_in",
        0.9,
        "born",
        r"«s:agent»«ADV»\s+(?:was|is)«ADV»\s+born(?:\s+and\s+(?:raised|bred))?\s+(?:on\s+[^,.;]{1,25}?,?\s+|in\s+\d{4},?\s+)?in\s+«o:name»",
    ),
    ("born_in", 0.85, "born", r"«s:name»\s*,\s*born\s+(?:in\s+\d{4}\s+)?in\s+«o:name»"),
    # "Born in Ulm, Albert Einstein …": the participle opens the sentence (or follows an opening quote); inside one,
    # "was born in Paris, France" names the place's country after the comma, not who was born. The place may be
    # followed by its region ("Born in Vienna, Austria, Ulrich …"), and the name read as who was born may not be
    # followed by a comma other than an apposition's: in "Born in Prelate, Saskatchewan, he moved" it is the region
    (
        "born_in",
        0.85,
        "born",
        r"(?:(?<![\s\S])|(?<=^[\"“'(]))Born\s+in\s+«o:name»(?:\s*,\s*«within:name»)?(?:\s+in\s+\d{4})?\s*,\s*"
        r"(?:the\s+[a-z]+(?:\s+[a-z]+)?\s+)?«s:name»(?!\s*,(?!\s*(?:a|an|the)\s))",
    ),
    (
        "died_in",
        0.85,
        "died passed perished killed",
        r"«s:agent»«ADV»\s+(?:died|passed\s+away|perished|was\s+killed)(?:\s+[\w-]+){0,4}?\s+in\s+«o:name»",
    ),
    ("place_of_birth", 0.9, "birthplace birth", r"\b(?:birthplace|place\s+of\s+birth)\s+of\s+«s:name»\s+(?:was|is)\s+«o:name»"),
    (
        "place_of_birth",
        0.9,
        "birthplace birth",
        r"«o:name»\s+(?:is|was)\s+(?:also\s+)?the\s+(?:birthplace|place\s+of\s+birth)\s+of\s+(?:the\s+[a-z]+\s+)?«s:name»",
    ),
    ("place_of_birth", 0.9, "birthplace birth", r"«s:poss»\s+(?:birthplace|place\s+of\s+birth)\s+(?:is|was)\s+«o:name»"),
    ("place_of_death", 0.9, "death", r"\bplace\s+of\s+death\s+of\s+«s:name»\s+(?:was|is)\s+«o:name»"),
    ("place_of_death", 0.9, "death", r"«o:name»\s+(?:is|was)\s+(?:also\s+)?the\s+place\s+of\s+death\s+of\s+(?:the\s+[a-z]+\s+)?«s:name»"),
    ("place_of_death", 0.9, "death", r"«s:poss»\s+place\s+of\s+death\s+(?:is|was)\s+«o:name»"),
    ("place_of_death", 0.85, "died", r"«o:name»\s+(?:is|was)\s+the\s+(?:place|city|town|village)\s+where\s+«s:name»\s+died"),
    (
        "country_of_citizenship",
        0.9,
        "citizen national subject",
        r"«s:agent»«AUX»«ADV»\s+(?:a|an)\s+(?:naturali[sz]ed\s+)?(?:citizen|national)\s+of\s+(?:the\s+)?«o:name»",
    ),
    (
        "country_of_citizenship",
        0.85,
        "citizenship nationality",
        r"«s:agent»«ADV»\s+(?:was\s+granted|received|obtained|acquired|took|took\s+up|gained|was\s+given|held)\s+"
        r"(?:citizenship|nationality)\s+(?:of|in)\s+(?:the\s+)?«o:name»",
    ),
    (
        "country_of_citizenship",
        0.8,
        "citizenship nationality",
        r"«s:agent»«ADV»\s+(?:was\s+granted|received|obtained|acquired|took|took\s+up|gained|was\s+given|held)\s+"
        r"«o:demonym»\s+(?:citizenship|nationality)",
    ),
    (
        "country_of_citizenship",
        0.8,
        "citizen national",
        r"«s:agent»«AUX»«ADV»\s+(?:a|an)\s+(?:naturali[sz]ed\s+)?«o:demonym»\s+(?:citizen|national)\b" + _LAST_WORD,
    ),
    (
        "resided_in",
        0.85,
        "lived resided resides lives settled dwelt",
        r"«s:agent»«ADV»\s+(?:lived|resided|resides|lives|settled|dwelt)\s+in\s+(?:the\s+)?«o:name»",
    ),
    ("resided_in", 0.85, "home", r"«s:agent»«ADV»\s+made\s+(?:his|her|their|its|a)\s+home\s+in\s+«o:name»"),
    (
        "resided_in",
        0.75,
        "spent",
        r"«s:agent»«ADV»\s+spent\s+(?:his|her|their|its)\s+(?:[a-z]+\s+){0,2}?(?:childhood|youth|years|life|days|"
        r"boyhood|girlhood|adolescence)\s+in\s+«o:name»",
    ),
    (
        "migrated_to",
        0.9,
        "emigrated immigrated migrated",
        r"«s:agent»«ADV»\s+(?:emigrated|immigrated|migrated)(?:\s+from\s+[\w\s]{1,30}?)?\s+to\s+(?:the\s+)?«o:name»",
    ),
    ("migrated_to", 0.75, "fled", r"«s:agent»«ADV»\s+fled(?:\s+from\s+[\w\s]{1,30}?)?\s+to\s+(?:the\s+)?«o:name»"),
    (
        "moved_to",
        0.85,
        "moved relocated",
        r"«s:agent»«ADV»\s+(?:moved|relocated)(?:\s+(?:back|permanently|abroad|with\s+(?:his|her|their|its)\s+[a-z]+))?"
        r"(?:\s+from\s+[\w\s]{1,30}?)?\s+to\s+(?:the\s+)?«o:name»",
    ),
    (
        "moved_to",
        0.8,
        "moved relocated",
        r"«s:agent»«ADV»\s+(?:moved|relocated)\s+(?:its|their|his|her)\s+(?:offices|office|operations|studio|studios|"
        r"works|factory|family)\s+to\s+(?:the\s+)?«o:name»",
    ),
    # --- social
    ("collaborated_with", 0.9, "collaborated", r"«s:agent»«ADV»\s+collaborated«ADV»\s+with\s+«o:names»"),
    ("collaborated_with", 0.85, "collaborated", r"«s:name»\s+and\s+«o:name»\s+collaborated"),
    ("collaborated_with", 0.7, "collaboration", r"«s:agent»\s+[^.;]{0,60}?\bin\s+collaboration\s+with\s+«o:name»"),
    ("collaborated_with", 0.8, "collaboration", r"«s:agent»«ADV»\s+(?:began|started|formed)\s+a\s+(?:[a-z]+\s+)?collaboration\s+with\s+«o:name»"),
    ("worked_with", 0.85, "worked working", r"«s:agent»«ADV»\s+worked«ADV»\s+(?:with|alongside|together\s+with)\s+«o:names»"),
    ("worked_with", 0.85, "worked", r"«s:name»\s+and\s+«o:name»\s+worked\s+together"),
    ("partnered_with", 0.85, "partnered teamed allied", r"«s:agent»«ADV»\s+(?:partnered|teamed\s+up|allied)\s+with\s+(?:the\s+)?«o:name»"),
    (
        "partnered_with",
        0.85,
        "partnership alliance venture",
        r"«s:agent»«ADV»\s+(?:formed|entered\s+into|signed|established|struck|announced|began)\s+(?:a|an)\s+"
        r"(?:[a-z]+\s+)?(?:partnership|alliance|joint\s+venture)\s+with\s+(?:the\s+)?«o:name»",
    ),
    ("partnered_with", 0.8, "partnership", r"«s:name»\s+and\s+«o:name»\s+(?:formed|entered\s+into|signed)\s+(?:a|an)\s+(?:[a-z]+\s+)?partnership"),
    ("spouse_of", 0.9, "married", r"(?<!\bof\s)«s:agent»«ADV»\s+married\s+«o:name»"),
    ("spouse_of", 0.9, "married", r"«s:agent»«AUX»«ADV»\s+married\s+to\s+«o:name»"),
    (
        "spouse_of",
        0.9,
        "wife husband spouse widow widower",
        r"«s:agent»«AUX»«ADV»\s+the\s+(?:[a-z]+\s+)?(?:wife|husband|spouse|widow|widower)\s+of\s+«o:name»",
    ),
    ("spouse_of", 0.9, "married", r"«s:name»\s+and\s+«o:name»\s+(?:were|got|had\s+been)\s+married"),
    ("spouse_of", 0.85, "wife husband spouse", r"«s:poss»\s+(?:wife|husband|spouse)(?:\s*,|\s+(?:was|is))\s+«o:name»"),
    (
        "child_of",
        0.9,
        "son daughter child children sons daughters offspring",
        r"«s:agent»«AUX»«ADV»\s+(?:the|a|an|one)\s+(?:(?:only|eldest|youngest|oldest|elder|younger|second|third|"
        r"first|fourth|illegitimate|legitimate|adopted|natural)\s+){0,2}(?:son|daughter|child|children|sons|daughters|"
        r"offspring)\s+of\s+«o:names»",
    ),
    ("child_of", 0.85, "son daughter child", r"«s:name»\s*,\s*(?:the|a|an)\s+(?:[a-z]+\s+)?(?:son|daughter|child)\s+of\s+«o:names»"),
    ("child_of", 0.85, "born", r"«s:agent»«ADV»\s+was\s+born\s+to\s+«o:names»"),
    ("child_of", 0.85, "father mother parents", r"«s:poss»\s+(?:father|mother|parents)(?:\s*,|\s+(?:was|were|is))\s+«o:names»"),
    (
        "parent_of",
        0.9,
        "father mother parent",
        r"«s:agent»«AUX»«ADV»\s+the\s+(?:[a-z]+\s+)?(?:father|mother|parent)\s+of\s+(?:the\s+[a-z]+\s+)?«o:names»",
    ),
    (
        "parent_of",
        0.85,
        "sons daughters children son daughter child",
        r"«s:agent»«ADV»\s+had\s+(?:a|an|one|two|three|four|five|six|seven|several|many|\d+)\s+(?:[a-z]+\s+)?"
        r"(?:sons?|daughters?|children|child)\s*(?:,|:|\s+named|\s+called)\s*«o:names»",
    ),
    ("parent_of", 0.8, "son daughter child", r"«s:poss»\s+(?:son|daughter|child)(?:\s*,|\s+(?:was|is))\s+«o:name»"),
    ("member_of", 0.9, "member", r"«s:agent»«AUX»«ADV»\s+(?:a|an)\s+(?:[a-z]+\s+)?member\s+of\s+(?:the\s+)?«o:name»"),
    (
        "member_of",
        0.9,
        "elected fellow admitted",
        r"«s:agent»«AUX»«ADV»\s+(?:elected|made|appointed|admitted)\s+(?:as\s+)?(?:a|an)\s+(?:[Ff]ellow|member|"
        r"[Ff]oreign\s+[Mm]ember|[Ff]oreign\s+[Ff]ellow)\s+of\s+(?:the\s+)?«o:name»",
    ),
    ("member_of", 0.85, "belonged belongs", r"«s:agent»«ADV»\s+(?:belonged|belongs)\s+to\s+(?:the\s+)?«o:org»"),
    ("member_of", 0.75, "joined", r"«s:agent»«ADV»\s+joined\s+(?:the\s+)?«o:org»"),
    ("affiliated_with", 0.85, "affiliated", r"«s:agent»«AUX»«ADV»\s+affiliated\s+with\s+(?:the\s+)?«o:name»"),
    ("affiliated_with", 0.75, "associated", r"«s:agent»«AUX»«ADV»\s+associated\s+with\s+(?:the\s+)?«o:name»"),
    (
        "affiliated_with",
        0.85,
        "affiliation",
        r"«s:agent»«ADV»\s+(?:had|has|held|maintained|kept)\s+(?:an|a\s+[a-z]+)\s+affiliation\s+with\s+(?:the\s+)?«o:name»",
    ),
    # --- creation
    ("discovered", 0.85, "discovered isolated", r"«s:agent»«ADV»\s+(?:discovered|co-discovered|codiscovered|isolated)\s+«o:anys»"),
    ("discovered", 0.9, "discovered isolated identified", r"«o:nps»\s+(?:was|were)«ADV»\s+(?:discovered|isolated|identified)«YR»\s+by\s+«s:names»"),
    ("discovered", 0.85, "discoverer", r"«s:agent»«AUX»«ADV»\s+(?:the|a)\s+(?:co-)?discoverer\s+of\s+«o:any»"),
    ("discovered", 0.8, "discovery", r"«s:agent»«AUX»«ADV»\s+(?:credited\s+with|known\s+for|famous\s+for)\s+(?:the\s+)?discovery\s+of\s+«o:any»"),
    ("invented", 0.85, "invented", r"«s:agent»«ADV»\s+invented\s+«o:anys»"),
    ("invented", 0.9, "invented", r"«o:np»\s+(?:was|were)«ADV»\s+invented«YR»\s+by\s+«s:name»"),
    ("invented", 0.8, "inventor", r"«s:agent»\s+[^.;]{0,40}?\bthe\s+(?:[a-z]+\s+)?inventor\s+of\s+«o:any»"),
    ("invented", 0.85, "inventor", r"«s:agent»«AUX»«ADV»\s+the\s+(?:[a-z]+\s+)?inventor\s+of\s+«o:any»"),
    ("co_invented", 0.9, "invented", r"«s:agent»«ADV»\s+co-?invented\s+«o:any»(?:\s+(?:together\s+)?with\s+«s2:names»)?"),
    ("co_invented", 0.9, "invented", r"«o:np»\s+(?:was|were)«ADV»\s+co-?invented«YR»\s+by\s+«s:names»"),
    ("co_invented", 0.88, "invented", r"«s:agent»«ADV»\s+invented\s+«o:any»\s+(?:together\s+)?with\s+«s2:names»"),
    ("co_invented", 0.88, "invented", r"[Tt]ogether\s+with\s+«s2:names»\s*,\s*«s:agent»«ADV»\s+invented\s+«o:any»"),
    ("co_invented", 0.85, "inventors", r"«s:agent»\s+and\s+«s2:names»\s+(?:were|are)\s+the\s+(?:[a-z]+\s+)?inventors\s+of\s+«o:any»"),
    ("developed", 0.85, "developed", r"«s:agent»«ADV»\s+(?:developed|co-developed)\s+«o:anys»"),
    ("developed", 0.85, "developed", r"«o:np»\s+(?:was|were)«ADV»\s+(?:developed|co-developed)«YR»\s+by\s+«s:names»"),
    ("developed", 0.8, "developer", r"«s:agent»«AUX»«ADV»\s+the\s+(?:[a-z]+\s+)?developer\s+of\s+«o:any»"),
    ("designed", 0.9, "designed", r"«s:agent»«ADV»\s+(?:designed|co-designed)\s+«o:anys»"),
    ("designed", 0.9, "designed", r"«o:np»\s+(?:was|were)«ADV»\s+(?:designed|co-designed)«YR»\s+by\s+«s:names»"),
    ("designed", 0.85, "architect designer", r"«s:agent»«AUX»«ADV»\s+the\s+(?:[a-z]+\s+)?(?:architect|designer)\s+of\s+«o:any»"),
    (
        "founded",
        0.85,
        "founded co-founded cofounded established",
        r"«s:agent»«ADV»\s+(?:founded|co-founded|cofounded|established|set\s+up)\s+(?:the\s+|a\s+|an\s+)?«FILL»«o:name»",
    ),
    (
        "founded",
        0.9,
        "founded co-founded established",
        r"«o:name»«AP»\s+(?:was|were)«ADV»\s+(?:founded|co-founded|established|set\s+up|started)«YR»\s+by\s+«s:names»",
    ),
    (
        "founded",
        0.85,
        "founded established",
        r"«o:name»\s*,\s*(?:which\s+was\s+|which\s+had\s+been\s+)?(?:founded|established)\s+(?:in\s+\d{4}\s+)?by\s+«s:names»",
    ),
    (
        "founded",
        0.9,
        "founder founders co-founder",
        r"«s:agent»«AUX»«ADV»\s+(?:the|a|one\s+of\s+the)\s+(?:co-?)?founders?\s+of\s+(?:the\s+)?«o:name»",
    ),
    ("founded", 0.9, "founded co-founded", r"[Tt]ogether\s+with\s+«s2:names»\s*,\s*«s:agent»«ADV»\s+(?:co-)?founded\s+(?:the\s+)?«o:name»"),
    ("created", 0.85, "created", r"«s:agent»«ADV»\s+(?:created|co-created)\s+«o:anys»"),
    ("created", 0.85, "created", r"«o:np»\s+(?:was|were)«ADV»\s+(?:created|co-created)«YR»\s+by\s+«s:names»"),
    ("created", 0.85, "creator", r"«s:agent»«AUX»«ADV»\s+the\s+(?:[a-z]+\s+)?(?:co-)?creator\s+of\s+«o:any»"),
    ("authored", 0.9, "authored co-authored coauthored", r"«s:agent»«ADV»\s+(?:authored|co-authored|coauthored)\s+«o:anys»"),
    (
        "authored",
        0.9,
        "author authors co-author",
        r"«s:agent»«AUX»«ADV»\s+(?:the|an|a|one\s+of\s+the)\s+(?:[a-z]+\s+)?(?:co-?)?authors?\s+of\s+«o:any»",
    ),
    ("authored", 0.9, "authored co-authored", r"«o:np»\s+(?:was|were)«ADV»\s+(?:authored|co-authored)«YR»\s+by\s+«s:names»"),
    ("wrote", 0.85, "wrote penned", r"«s:agent»«ADV»\s+(?:wrote|penned)\s+«o:anys»"),
    ("wrote", 0.9, "written penned", r"«o:np»\s+(?:was|were)«ADV»\s+(?:written|penned)«YR»\s+by\s+«s:names»"),
    ("published", 0.8, "published", r"«s:agent»«ADV»\s+published\s+«o:anys»"),
    ("published", 0.85, "published", r"«o:np»\s+(?:was|were)«ADV»\s+published«YR»\s+by\s+«s:names»"),
    ("formulated", 0.85, "formulated articulated", r"«s:agent»«ADV»\s+(?:formulated|articulated)\s+«o:anys»"),
    ("formulated", 0.85, "formulated", r"«o:np»\s+(?:was|were)«ADV»\s+formulated«YR»\s+by\s+«s:names»"),
    (
        "proposed",
        0.85,
        "proposed postulated forward hypothesized hypothesised",
        r"«s:agent»«ADV»\s+(?:proposed|put\s+forward|postulated|hypothesi[sz]ed)\s+«o:anys»",
    ),
    ("proposed", 0.85, "proposed postulated forward", r"«o:np»\s+(?:was|were)«ADV»\s+(?:proposed|put\s+forward|postulated)«YR»\s+by\s+«s:names»"),
    (
        "cracked",
        0.85,
        "cracked decoded deciphered decrypted crack decipher decode",
        r"«s:agent»«ADV»\s+(?:helped\s+(?:to\s+)?)?(?:cracked|decoded|deciphered|decrypted|crack|decipher|decode)\s+«o:any»",
    ),
    ("cracked", 0.8, "broke break", r"«s:agent»«ADV»\s+(?:helped\s+(?:to\s+)?)?(?:broke|break)\s+(?P<x>«o:any»)"),
    (
        "cracked",
        0.85,
        "cracked broken decoded deciphered decrypted",
        r"«o:np»\s+(?:was|were)«ADV»\s+(?:cracked|broken|decoded|deciphered|decrypted)«YR»\s+by\s+«s:names»",
    ),
    ("patented", 0.9, "patented", r"«s:agent»«ADV»\s+patented\s+«o:any»"),
    (
        "patented",
        0.85,
        "patent",
        r"«s:agent»«ADV»\s+(?:received|obtained|filed|was\s+granted|secured|was\s+awarded|applied\s+for|held)\s+"
        r"(?:a|the|his|her|their|its)\s+(?:[a-z]+\s+)?patent\s+(?:for|on)\s+«o:any»",
    ),
    # --- institutional
    ("educated_at", 0.9, "educated", r"«s:agent»«AUX»«ADV»\s+educated\s+at\s+(?:the\s+)?«o:name»"),
    ("educated_at", 0.85, "graduated", r"«s:agent»«ADV»\s+graduated\s+(?:from|at)\s+(?:the\s+)?«o:name»"),
    ("educated_at", 0.8, "attended", r"«s:agent»«ADV»\s+attended\s+(?:the\s+)?«o:edu»"),
    ("educated_at", 0.85, "graduate alumnus alumna", r"«s:agent»«AUX»\s+(?:a\s+|an\s+)?(?:graduate|alumnus|alumna)\s+of\s+(?:the\s+)?«o:name»"),
    ("studied_at", 0.85, "studied", r"«s:agent»«ADV»\s+studied(?:\s+[a-z]+(?:\s+and\s+[a-z]+)?)?\s+(?:at|in)\s+(?:the\s+)?«o:name»"),
    ("studied_at", 0.85, "student", r"«s:agent»«AUX»\s+(?:a\s+)?student\s+at\s+(?:the\s+)?«o:name»"),
    ("employed_by", 0.9, "employed hired recruited", r"«s:agent»«AUX»«ADV»\s+(?:employed|hired|recruited)\s+by\s+(?:the\s+)?«o:name»"),
    ("employed_by", 0.85, "worked works", r"«s:agent»«ADV»\s+(?:worked|works)\s+for\s+(?:the\s+)?«o:name»"),
    ("employed_by", 0.75, "joined", r"«s:agent»«ADV»\s+joined\s+(?:the\s+)?«o:company»"),
    ("employed_by", 0.9, "employee", r"«s:agent»«AUX»\s+(?:an\s+)?employee\s+of\s+(?:the\s+)?«o:name»"),
    ("worked_at", 0.85, "worked works working taught lectured", r"«s:agent»«ADV»\s+(?:worked|works|taught|lectured)\s+at\s+(?:the\s+)?«o:name»"),
    ("worked_at", 0.75, "working employed", r"«s:agent»\s+[^.;]{1,80}?\bwhile\s+(?:working|employed)\s+at\s+(?:the\s+)?«o:name»"),
    (
        "worked_at",
        0.8,
        "working teaching researching",
        r"«s:agent»«ADV»\s+spent\s+(?:[\w]+\s+){1,3}?(?:working|teaching|researching)\s+at\s+(?:the\s+)?«o:name»",
    ),
    (
        "worked_at",
        0.8,
        "position post job professorship chair fellowship lectureship",
        r"«s:agent»«ADV»\s+(?:took|accepted|held|obtained|took\s+up)\s+(?:a|an|the)\s+(?:[a-z]+\s+)?(?:position|post|job|"
        r"professorship|chair|fellowship|lectureship)\s+at\s+(?:the\s+)?«o:name»",
    ),
    ("worked_at", 0.75, "worked employed served", r"\b[Aa]t\s+«o:name»\s*,\s*«s:agent»«ADV»\s+(?:worked|was\s+employed|served)"),
    (
        "field_of_work",
        0.8,
        "field fields area discipline domain",
        r"«s:agent»\s+(?:[^.;]{0,40}?\s+)?in\s+the\s+(?:field|fields|area|discipline|domain)\s+of\s+«o:anys»",
    ),
    (
        "field_of_work",
        0.75,
        "contributions contribution",
        r"«s:agent»«ADV»\s+(?:made|contributed|published)\s+(?:[a-z]+\s+){0,2}?contributions?\s+to\s+«o:lows»",
    ),
    (
        "field_of_work",
        0.75,
        "researcher specialist expert pioneer scholar professor lecturer",
        r"«s:agent»«AUX»\s+(?:a|an)\s+(?:[a-z]+\s+)?(?:researcher|specialist|expert|pioneer|scholar|professor|lecturer)\s+"
        r"(?:in|of)\s+«o:lows»",
    ),
    ("field_of_work", 0.8, "specialized specialised specializing specialising", r"«s:agent»«ADV»\s+speciali[sz]ed\s+in\s+«o:lows»"),
    # --- awards
    ("award_received", 0.9, "awarded", r"«s:agent»«AUX»«ADV»\s+awarded\s+(?:the\s+|a\s+|an\s+)?«o:name»"),
    (
        "award_received",
        0.85,
        "received given presented accepted earned honored honoured collected",
        r"«s:agent»«ADV»\s+(?:received|was\s+given|was\s+presented\s+with|accepted|earned|was\s+honou?red\s+with|"
        r"collected)\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+|their\s+)?(?:[a-z]+\s+)?«o:award»",
    ),
    ("award_received", 0.9, "awarded given presented", r"«o:name»\s+(?:was|were)«ADV»\s+(?:awarded|given|presented)«YR»\s+to\s+«s:names»"),
    ("won", 0.85, "won wins win clinched", r"«s:agent»«ADV»\s+(?:won|wins|clinched)\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+|their\s+)?«FILL»«o:name»"),
    (
        "won",
        0.8,
        "win",
        r"«s:agent»«ADV»\s+(?:became|was)\s+the\s+(?:first|second|only|youngest|oldest|last)\s+"
        r"[\w\s]{0,30}?\bto\s+win\s+(?:the\s+)?«o:name»",
    ),
    ("won", 0.85, "won", r"«o:name»\s+(?:was|were)«ADV»\s+won«YR»\s+by\s+«s:names»"),
    (
        "nominated_for",
        0.9,
        "nominated shortlisted",
        r"«s:agent»«AUX»«ADV»\s+(?:nominated|shortlisted)(?:\s+[\w]+){0,3}?\s+for\s+(?:the\s+|an?\s+)?«o:name»",
    ),
    (
        "nominated_for",
        0.9,
        "nomination nominations",
        r"«s:agent»«ADV»\s+(?:received|earned|got|garnered)\s+(?:a|an|the|\w+)\s+nominations?\s+for\s+(?:the\s+|an?\s+)?«o:name»",
    ),
    # --- geography and hierarchy
    (
        "capital_of",
        0.9,
        "capital",
        r"«s:name»«ADV»\s+(?:is|was|became|remains|serves\s+as|served\s+as)\s+(?:also\s+)?the\s+(?:(?:federal|national|"
        r"political|administrative|official|current|former|royal|first)\s+)?capital(?:\s+city)?\s+of\s+(?:the\s+)?«o:name»",
    ),
    ("capital_of", 0.9, "capital", r"«s:name»\s*,\s*the\s+capital(?:\s+city)?\s+of\s+(?:the\s+)?«o:name»"),
    ("capital_of", 0.9, "capital", r"\b[Tt]he\s+capital(?:\s+city)?\s+of\s+(?:the\s+)?«o:name»\s+(?:is|was)\s+«s:name»"),
    ("capital_of", 0.9, "capital", r"«o:poss»\s+capital(?:\s+city)?\s+(?:is|was)\s+«s:name»"),
    ("located_in", 0.85, "located situated", r"«s:np»«AUX»«ADV»\s+(?:located|situated)\s+in\s+(?:the\s+)?«FILL»«o:name»"),
    ("located_in", 0.75, "lies lay sits stands", r"«s:name»«ADV»\s+(?:lies|lay|sits|stands)\s+in\s+(?:the\s+)?«FILL»«o:name»"),
    (
        "located_in",
        0.85,
        "city town village municipality region province state county district island river mountain lake commune suburb port",
        r"«s:name»\s+(?:is|was)\s+(?:a|an|the)\s+(?:[a-z]+\s+){0,2}?(?:city|town|village|municipality|region|province|"
        r"state|county|district|island|river|mountain|lake|commune|suburb|port)\s+in\s+(?:the\s+)?(?:(?:province|state|"
        r"region|county|district|department|canton|country|kingdom|republic)\s+of\s+)?«FILL»«o:name»",
    ),
    (
        "located_in",
        0.8,
        "city town village municipality region province district island commune suburb port",
        r"«s:name»\s*,\s*(?:a|an)\s+(?:[a-z]+\s+){0,2}?(?:city|town|village|municipality|region|province|district|island|"
        r"commune|suburb|port)\s+in\s+(?:the\s+)?«FILL»«o:name»",
    ),
    ("headquartered_in", 0.9, "headquartered", r"«s:agent»«AUX»«ADV»\s+headquartered\s+in\s+«o:name»"),
    (
        "headquartered_in",
        0.9,
        "headquarters",
        r"«s:poss»\s+(?:global\s+|main\s+|corporate\s+)?headquarters\s+(?:is|are|was|were)\s+(?:located\s+|based\s+|situated\s+)?in\s+«o:name»",
    ),
    (
        "headquartered_in",
        0.9,
        "headquarters",
        r"\b[Tt]he\s+headquarters\s+of\s+(?:the\s+)?«s:name»\s+(?:is|are|was|were)\s+(?:located\s+|based\s+|situated\s+)?in\s+«o:name»",
    ),
    (
        "headquartered_in",
        0.9,
        "headquarters office",
        r"«s:agent»«ADV»\s+(?:has|had|maintains|keeps)\s+(?:its|their)\s+(?:global\s+|main\s+|corporate\s+)?"
        r"(?:headquarters|head\s+office|main\s+office)\s+in\s+«o:name»",
    ),
    ("headquartered_in", 0.8, "headquarters", r"«s:agent»«ADV»\s+(?:moved|relocated)\s+(?:its|their)\s+headquarters\s+to\s+«o:name»"),
    (
        "subclass_of",
        0.85,
        "kind type sort form class subclass subtype variety category subset branch",
        r"«s:nps»\s+(?:is|are)\s+(?:a|an)\s+(?:kind|type|sort|form|class|subclass|subtype|variety|category|subset|branch)"
        r"\s+of\s+(?:the\s+)?«o:any»",
    ),
    ("part_of", 0.85, "part", r"«s:np»«ADV»\s+(?:is|are|was|were|forms|formed|form)\s+(?:a\s+|an\s+)?(?:[a-z]+\s+)?part\s+of\s+(?:the\s+)?«o:any»"),
    ("part_of", 0.75, "belongs belonged", r"«s:name»«ADV»\s+(?:belongs|belonged)\s+to\s+(?:the\s+)?«o:nonorg»"),
    # only a bare class noun ("a gas giant"): "was a member of Y" / "a citizen of Y" are relations, not classes
    (
        "instance_of",
        0.75,
        "is was",
        r"^«s:name»\s+(?:is|was)\s+(?:a|an)\s+"
        r"(?P<o>[a-z]+(?:\s+(?!(?:of|in|at|for|from|with|on|by|to|and|or)\b)[a-z]+){0,2})\s*[.!]?$",
    ),
    ("instance_of", 0.85, "example instance", r"«s:name»\s+(?:is|was)\s+(?:an?\s+)?(?:example|instance)\s+of\s+(?:a\s+|an\s+|the\s+)?«o:low»"),
    ("has_part", 0.85, "consists consisted", r"«s:np»«ADV»\s+(?:consists|consisted)\s+of\s+«o:anys»"),
    ("has_part", 0.8, "comprises comprised composed", r"«s:np»«ADV»\s+(?:comprises|comprised|is\s+made\s+up\s+of|is\s+composed\s+of)\s+«o:anys»"),
    ("contains", 0.85, "contains contained houses housed home", r"«s:np»«ADV»\s+(?:contains|contained|houses|housed|is\s+home\s+to)\s+«o:anys»"),
    # --- influence and succession
    (
        "influenced_by",
        0.9,
        "influenced inspired shaped",
        r"«s:agent»«AUX»«ADV»\s+(?:influenced|inspired|shaped)\s+by\s+(?:the\s+(?:work|works|ideas|writings|thought|"
        r"philosophy|teachings)\s+of\s+)?«o:names»",
    ),
    (
        "influenced_by",
        0.8,
        "influenced inspired",
        r"(?:[Tt]he\s+(?:work|works|ideas|writings|thought|philosophy|teachings)\s+of\s+)?«o:name»«ADV»\s+"
        r"(?:influenced|inspired)\s+«s:names»",
    ),
    (
        "influenced_by",
        0.75,
        "drew draws",
        r"«s:agent»«ADV»\s+(?:drew|draws|built)\s+(?:heavily\s+)?(?:on|upon)\s+the\s+(?:work|works|ideas|writings|"
        r"thought)\s+of\s+«o:name»",
    ),
    ("influenced_by", 0.75, "follower admirer", r"«s:agent»«AUX»\s+(?:a\s+|an\s+)?(?:[a-z]+\s+)?(?:follower|admirer)\s+of\s+«o:name»"),
    (
        "student_of",
        0.9,
        "student pupil disciple apprentice protégé",
        r"«s:agent»«AUX»«ADV»\s+(?:a|the|an)\s+(?:[a-z]+\s+)?(?:student|pupil|disciple|apprentice|protégé)\s+of\s+«o:name»",
    ),
    ("student_of", 0.9, "studied trained apprenticed", r"«s:agent»«ADV»\s+(?:studied|trained|apprenticed)\s+under\s+«o:name»"),
    ("student_of", 0.85, "lessons", r"«s:agent»«ADV»\s+(?:took|received|had)\s+(?:[a-z]+\s+)?lessons\s+(?:from|with)\s+«o:name»"),
    (
        "student_of",
        0.85,
        "taught tutored mentored supervised trained",
        r"«s:agent»«AUX»«ADV»\s+(?:taught|tutored|mentored|supervised|trained)\s+by\s+«o:name»",
    ),
    (
        "teacher_of",
        0.85,
        "taught tutored mentored supervised trained",
        r"«s:agent»«ADV»\s+(?:taught|tutored|mentored|supervised|trained)\s+(?:the\s+(?:[a-z]+\s+)?(?:work|thesis|research|"
        r"studies)\s+of\s+)?«o:name»",
    ),
    (
        "teacher_of",
        0.9,
        "teacher tutor mentor supervisor instructor advisor adviser",
        r"«s:agent»«AUX»«ADV»\s+(?:the|a)\s+(?:[a-z]+\s+)?(?:teacher|tutor|mentor|supervisor|instructor|advisor|adviser)"
        r"\s+of\s+«o:names»",
    ),
    (
        "successor_to",
        0.85,
        "succeeded replaced superseded supplanted",
        r"«s:np»«ADV»\s+(?:succeeded|replaced|superseded|supplanted)\s+(?:the\s+)?«o:any»",
    ),
    ("successor_to", 0.9, "successor", r"«s:np»«AUX»«ADV»\s+(?:the|a)\s+successor\s+(?:of|to)\s+(?:the\s+)?«o:any»"),
    ("successor_to", 0.85, "preceded", r"«s:np»\s+(?:was|were|is|are)«ADV»\s+preceded\s+by\s+(?:the\s+)?«o:any»"),
    ("predecessor_to", 0.85, "preceded", r"«s:np»«ADV»\s+preceded\s+(?:the\s+)?«o:any»"),
    (
        "predecessor_to",
        0.85,
        "succeeded replaced superseded",
        r"«s:np»\s+(?:was|were)«ADV»\s+(?:succeeded|replaced|superseded)«YR»\s+by\s+(?:the\s+)?«o:any»",
    ),
    ("predecessor_to", 0.9, "predecessor", r"«s:np»«AUX»«ADV»\s+the\s+(?:direct\s+|immediate\s+)?predecessor\s+(?:of|to)\s+(?:the\s+)?«o:any»"),
    # --- industry
    ("manufactured", 0.85, "manufactures manufactured", r"«s:name»«ADV»\s+(?:manufactures|manufactured)\s+«o:anys»"),
    ("manufactured", 0.7, "builds produces makes assembles", r"«s:name»«ADV»\s+(?:builds|produces|makes|assembles)\s+«o:anys»"),
    (
        "manufactured",
        0.85,
        "manufactured produced built assembled",
        r"«o:np»\s+(?:is|was|are|were)«ADV»\s+(?:manufactured|produced|built|assembled)«YR»\s+by\s+(?:the\s+)?«s:name»",
    ),
    (
        "operated_by",
        0.85,
        "operated managed maintained",
        r"«s:np»\s+(?:is|are|was|were)«ADV»\s+(?:operated|managed|owned\s+and\s+operated)«ADV»\s+by\s+(?:the\s+)?«o:names»",
    ),
    ("operated_by", 0.8, "run", r"«s:np»\s+(?:is|are|was|were)«ADV»\s+run«ADV»\s+by\s+(?:the\s+)?«o:names»"),
    ("operated_by", 0.75, "operates", r"«o:name»«ADV»\s+operates\s+(?:the\s+)?«s:any»"),
    # a nationality word for what a person is (`_PERSON_WORD` above): "Patrick Stettner is an American film director",
    # "a song by Italian singer Tiziano Ferro". Last, so that the rules before keep their ids.
    (
        "country_of_citizenship",
        0.8,
        _DEMONYM_WORDS,
        # not of whose: "The son of John Smith is an American actor"; not "non-British", "pro-Russian"
        r"(?<!\bof\s)«s:agent»\s+(?:is|was)\s+(?:a|an)\s+(?:" + _WORD_OF + r"\s+){0,2}(?<!-)«o:demonym»" + _NOT_NATIONAL + _OF_A_PERSON,
    ),
    (
        "country_of_citizenship",
        0.8,
        _DEMONYM_WORDS,
        # words for what a person is may be listed, which "and" closes: "the Polish pianist, composer and teacher
        # Fryderyk Chopin" (not a clause's comma: "During the Russian invasion, president Volodymyr Zelenskyy stayed")
        r"(?<!-)«o:demonym»"
        + _NOT_NATIONAL
        + r"\s+(?:"
        + (_ROLE_WORD + r"(?:\s*+,\s++" + _ROLE_WORD + r"){1,2}\s++and\s++")
        + r"|(?:"
        + _ROLE_WORD
        + r"\s+(?:and\s+(?=[a-z]))?){0,3})"
        + _PERSON_WORD
        + r"\s+«s:name»",
    ),
    # a life's parenthesis (`_LIFE` above) and "A native of Syracuse, New York, Wallace …"; at the end, so that the rules
    # before keep their ids.
    (
        "born_in",
        0.85,
        "born",
        _LIFE
        + r"born\s++(?:"
        + _TOK
        + r"(?:\s*+[;,]\s*+|\s++(?=on\s|in\s)))?(?:(?:(?:on|in)\s++)?"
        + _DATE
        + _COMMA
        + _AT
        + r"|(?:in|at)\s++)«o:name»",
    ),
    # a birth's date, its place, a dash and the death's date ("(1859 in London – 15 January 1932)"); or its place first,
    # a dash, the death's place and date: a term of office, a name in another script or a birth name before the dates
    # names no second place ("(Leeds North, May 1990 – June 1995)", "Pelé (Edson Arantes do Nascimento, 23 October 1940
    # – 29 December 2022)")
    ("born_in", 0.85, _MONTH_WORDS, _LIFE_OPENS + _DATE_Y + _COMMA + _AT + "«o:name»" + _REGIONS + _DASH + _DATE_Z),
    ("born_in", 0.85, _MONTH_WORDS, _LIFE_OPENS + "«o:name»" + _REGIONS + r"\s*+,\s*+" + _DATE_Y + _DASH + _TOK + _REGIONS + r"\s*+,\s*+" + _DATE_Z),
    # "died" opens the parenthesis or a part of it: "(born 1950 in Leeds; his brother died in York)" is no death of his
    (
        "died_in",
        0.85,
        "died",
        _LIFE + r"(?:[^()]{0,120}?[;,]\s*+)?\bdied\s++(?:(?:on|in)\s++)?(?:" + _DATE + _COMMA + r")?" + _AT + "«o:name»",
    ),
    # a death after the dash: with the birth's place before it, or between whole dates and after "in" (a term of office
    # is mostly dated by months, and an MP's party follows a comma: "Douglas Haig (December 1915 – November 1918,
    # France)", "John Smith (12 May 1990 – 3 June 1995, Labour)")
    (
        "died_in",
        0.85,
        _MONTH_WORDS,
        _LIFE_OPENS
        + r"(?:"
        + (_BIRTH_PLACED + _DASH + _DATE_Z + _COMMA + _AT)
        + r"|"
        + (_CIRCA + _DAY_MONTH + r"(?P<y2>" + _LIFE_YEAR + ")" + _DASH + _DAY_MONTH + r"(?P<z2>" + _LIFE_YEAR + r")\s++in\s++")
        + r")«o:name»",
    ),
    ("died_in", 0.85, _MONTH_WORDS, _LIFE_OPENS + _BIRTH + _DASH + "«o:name»" + _REGIONS + r"\s*+,\s*+" + _DATE_Z + r"\s*+\)"),
    (
        "born_in",
        0.85,
        "native",
        # not "A native of Leeds, Peter Brown's father was …"
        r"(?:(?<![\s\S])|(?<=^[\"“'(]))A\s+native\s+of\s+«o:name»" + _REGIONS + r"\s*,\s*«s:name»(?!['’])(?!\s*,(?!\s*(?:a|an|the)\s))",
    ),
    # a spouse: a sentence that opens "Rip Torn and his wife Mona", "Philippe-Louis du Han (1678 – 1733) and his wife
    # Catherine" (not "He played for Arsenal and his wife Jane Doe", whose "his" is his); "Manon married the architect
    # Jacques-François Blondel", "married French politician Éric Besson" (not "married Anna Berg while director John
    # Smith filmed", "married off his daughter Mary", "married the composer Karl Weber's brother")
    (
        "spouse_of",
        0.85,
        "wife husband",
        r"(?:(?<![\s\S])|(?<=^[\"“'(]))«s:name»(?:\s*+\([^()]{0,60}\))?(?:\s*+,)?\s++and\s++(?:his|her)\s++"
        r"(?:(?:first|second|third|late|future)\s++)?(?:wife|husband)(?:\s*+,)?\s++«o:name»",
    ),
    (
        "spouse_of",
        0.85,
        "married",
        r"(?<!\bof\s)«s:agent»«ADV»\s+married\s++(?:(?:the|a|an)\s++)?(?:" + _SPOUSE_ROLE + r"\s++){0,2}" + _PERSON_WORD + r"\s++«o:name»(?!['’])",
    ),
    (
        "spouse_of",
        0.85,
        "married",
        r"(?<!\bof\s)«s:agent»«ADV»\s+married\s++(?:(?:the|a|an)\s++)?«n:nationality»\s++(?:"
        + _SPOUSE_ROLE
        + r"\s++){0,2}"
        + _PERSON_WORD
        + r"\s++«o:name»(?!['’])",
    ),
    # a death whose place follows its date, the age at it, its cause or where in the town it was: "She died in 1934 at a
    # sanatorium in Passy", "He died at the age of 92 in Grimstad", "died on 19 February 1952, at his home in Grimstad",
    # "She died of uterine cancer in 1852 at the age of 36 in Marylebone" (one of four words or fewer before "in" is
    # the rule above)
    (
        "died_in",
        0.85,
        "died passed",
        r"«s:agent»«ADV»\s+(?:died|passed\s+away)(?:(?:\s*+,)?+\s++(?:(?:on|in)\s++"
        + _DATE
        + r"|at\s++the\s++age\s++of\s++\d{1,3}|aged\s++\d{1,3}"
        + r"|of\s++(?:(?:a|an|the)\s++)?[a-z-]++(?:\s++(?!(?:in|at|on|aged)\b)[a-z-]++){0,2}+)){1,3}+"
        r"(?:(?:\s*+,)?+\s++at\s++(?:a|an|the|his|her|their)\s++[a-z]++(?:\s++(?!in\b)[a-z]++)?+)?+(?:\s*+,)?+\s++in\s++«o:name»",
    ),
    # a life told in a relative clause of the sentence's predicate noun: "Jan Olsen was a Danish actor who died in
    # Copenhagen", "… an engineer who was born in Leeds" (not "the son of a baker who died in Leeds": no word of the
    # noun phrase joins another)
    (
        "died_in",
        0.85,
        "died passed",
        r"«s:agent»\s+(?:was|is)\s+(?:a|an|the)\s++" + _NOUN_PHRASE + r"who\s++(?:died|passed\s++away)\s++in\s++«o:name»",
    ),
    (
        "born_in",
        0.85,
        "born",
        r"«s:agent»\s+(?:was|is)\s+(?:a|an|the)\s++" + _NOUN_PHRASE + r"who\s++was\s++born\s++in\s++(?:\d{4}(?:\s*+,)?+\s++in\s++)?«o:name»",
    ),
    # "Anna Berg is married to the actor Tom Hanks", "was married to American actor Tom Hanks"
    (
        "spouse_of",
        0.85,
        "married",
        r"«s:agent»«AUX»«ADV»\s+married\s+to\s++(?:(?:the|a|an)\s++)?(?:" + _SPOUSE_ROLE + r"\s++){0,2}" + _PERSON_WORD + r"\s++«o:name»(?!['’])",
    ),
    (
        "spouse_of",
        0.85,
        "married",
        r"«s:agent»«AUX»«ADV»\s+married\s+to\s++(?:(?:the|a|an)\s++)?«n:nationality»\s++(?:"
        + _SPOUSE_ROLE
        + r"\s++){0,2}"
        + _PERSON_WORD
        + r"\s++«o:name»(?!['’])",
    ),
    # where a company or an association is based, in the sentence that opens with it and says what it is: "Pointr is a
    # startup company based in London", "The National Turkey Federation (NTF) is the … trade association based in
    # Washington" (Re-DocRED states such places as headquarters; a team or a band "based in" a town is in it, and is
    # left to the classifiers). Not from a name inside the sentence: "Shihlin Electric and Engineering Corporation is …"
    # would give its last words
    (
        "headquartered_in",
        0.85,
        "based headquartered",
        r"(?:(?<![\s\S])|(?<=^[\"“'(]))(?:The\s++)?«s:name»(?:\s*+\([^()]{0,60}\))?\s+(?:is|was)\s+(?:a|an|the)\s++"
        + r"(?:"
        + _NOUN_PHRASE
        + r")?(?:"
        + _trie(_BASED_ORGS)
        + r")\s++(?:(?:that\s++is|which\s++is)\s++)?(?:based|headquartered)\s++in\s++«o:name»",
    ),
]


_NAME_ONLY_SHAPES = frozenset({"name", "names", "demonym", *_CHECKS})  # a name token and nothing else
_AGENT_SHAPES = frozenset({"agent", "poss"})  # a name token or a pronoun


def _optional_regions(source: str) -> list[tuple[int, int]] | None:
    """(open, close) offsets of the groups in `source` that may match without their content: quantified
    ?, * or {0,…}, or holding an alternation. None when the pattern itself is an alternation at the top."""
    regions: list[tuple[int, int]] = []
    stack: list[list] = []
    i, n, in_class = 0, len(source), False
    while i < n:
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if source[i + 1 : i + 2] == "^":
                i += 1
            if source[i + 1 : i + 2] == "]":
                i += 1
        elif c == "(":
            stack.append([i, False])
        elif c == "|":
            if not stack:
                return None
            stack[-1][1] = True
        elif c == ")":
            start, alt = stack.pop()
            after = source[i + 1 : i + 4]
            if alt or after[:1] in ("?", "*") or after.startswith("{0"):
                regions.append((start, i))
        i += 1
    return regions


def _requirements(source: str) -> tuple[int, int, bool]:
    """(min_names, min_agents, opens_with_name) of a rule source; conservative (an optional slot counts 0)."""
    regions = _optional_regions(source)
    if regions is None:
        return 0, 0, False
    names = agents = 0
    opens = False
    for m in _SLOT.finditer(source):
        shape = m.group(2)
        if shape is None or any(a < m.start() < b for a, b in regions):
            continue
        if shape in _NAME_ONLY_SHAPES:
            names += 1
            opens = opens or m.start() == 1 and source[0] == "^"
        elif shape in _AGENT_SHAPES:
            agents += 1
    return names, agents, opens


def rules(only: frozenset[str] | None = None) -> tuple[Rule, ...]:
    """The built-in rules (of the predicates `only`: all for None), each compiled on its first use, then cached.
    Only the rules asked for are compiled: the statistical extractor asks for those of seven predicates, whose patterns
    compile in a small part of the time all of them take (docs/extraction.md), and `ingest` pays it at every start."""
    return tuple(_rule(i) for i, spec in enumerate(_RULE_SPECS) if only is None or spec[0] in only)


@lru_cache(maxsize=None)
def _rule(i: int) -> Rule:
    pred, score, triggers, source = _RULE_SPECS[i]
    pat, lists, checks, demonyms = _expand(source)
    rx = re.compile(pat)
    return Rule(
        f"r{i:03d}-{pred}",
        pred,
        score,
        tuple(triggers.split()),
        source,
        rx,
        frozenset(lists),
        tuple(checks),
        frozenset(demonyms),
        *_requirements(source),
        bool(re.match(r"«[a-z0-9]+:(?:agent|poss)»", source)),
        tuple(sorted(set(rx.groupindex) - {"s", "o"})),
    )


# ------------------------------------------------------------------ entities, literals, valid time

_NAME_RX = re.compile(_NAME_CORE)
_NAME_FAST_RX = re.compile(_NAME_FAST)  # finds exactly what _NAME_RX finds, faster
_PRIVATE = re.compile("[\ue000\ue001]")
_ERAS = frozenset({"BC", "BCE", "AD", "CE", "B.C", "A.D", "B.C.", "A.D."})
_WORD = re.compile(r"[^\W\d_]+")
# ASCII letters kept, every other byte a space: bytes.split() then gives _WORD's tokens of an ASCII text
_LETTERS_ONLY = bytes(c if chr(c).isalpha() else 32 for c in range(128)) + bytes([32] * 128)


def _opens_with(sentence: str, pronouns: tuple[str, ...]) -> bool:
    """Whether the sentence's first word is one of these (short, lower-case) pronouns."""
    return sentence.lstrip()[:8].lower().startswith(tuple(p + " " for p in pronouns))


_PRONOUN_VALUE = {
    "he": "person",
    "she": "person",
    "his": "person",
    "her": "person",
    "him": "person",
    "it": "thing",
    "its": "thing",
    "they": "group",
    "their": "group",
}
# (?<!\s) and possessive blanks: a run of blanks is tried once, not from each of its characters (quadratic)
_LIST_SPLIT = re.compile(r"(?<!\s)\s*+,\s*+(?:(?:and|&)\s++)?|(?<!\s)\s++(?:and|&)\s++")
_LEAD_DET = re.compile(r"^(?:the|a|an|his|her|their|its)\s+", re.IGNORECASE)
_TRAIL = re.compile(r"(?:['’]s?|(?<![\s,;:.!?\"”’)\]])[\s,;:.!?\"”’)\]]++)$")
_NEG = re.compile(r"\b(?:not|never|no\s+longer|n['’]t)\b", re.IGNORECASE)
# supersets, for skipping work: no loose hit in a sentence means no exact hit anywhere in it
_NEG_LOOSE = re.compile(r"not|never|no\s+longer|n['’]t", re.IGNORECASE)
# every pronoun an agent or possessive slot accepts, plainly written (tests hold _PRON_AT to it)
_PRON_ANY = re.compile(r"(?<![\w\ue000])(?:[Hh]e|[Ss]he|[Ii]t|[Tt]hey|[Hh]is|[Hh]er|[Tt]heir|[Ii]ts)\b")
# where those pronouns start, in a form `re` scans fast (opening on the first letter, not on a look-behind)
_PRON_AT = re.compile(r"[HhSsIiTt](?<![\w\ue000][\s\S])(?:(?<=[Hh])(?:e|is|er)|(?<=[Ss])he|(?<=[Ii])ts?|(?<=[Tt])he(?:y|ir))\b")
_CIPHER = re.compile(r"(?i)code|cipher|cypher|enigma|encryption|script|telegram")


def _matches_at(rx: re.Pattern[str], text: str, starts: list[int]) -> list[re.Match[str]]:
    """What rx.finditer(text) gives when no match can begin outside `starts` (ascending): the regex is
    tried only there, left to right, never inside an earlier match (matches are never empty here)."""
    out = []
    end = 0
    match = rx.match
    for p in starts:
        if p < end:
            continue
        m = match(text, p)  # look-behinds still see the text before p
        if m is not None:
            out.append(m)
            end = m.end()
    return out


def _year(text: str) -> int:
    """A year as a life's parenthesis writes it, one before the common era negative.

    >>> _year("1950"), _year("106 BC"), _year("980 AD")
    (1950, -106, 980)
    """
    digits = re.match(r"\d+", text)
    n = int(digits.group()) if digits else 0
    return -n if "B" in text[len(digits.group()) if digits else 0 :] else n


# ------------------------------------------------------------------ taxonomy hints


@dataclass(frozen=True)
class _TriggerTable:
    """The rules of some predicates, and for each of their trigger words (lower case; the ASCII ones also as bytes, for
    `RuleExtractor._wanted`'s fast path) the positions in `rules` of the rules it may fire. Never changed once made."""

    rules: tuple[Rule, ...]
    by_word: Mapping[str, tuple[int, ...]]
    words: frozenset[str]
    by_bytes: Mapping[bytes, tuple[int, ...]]
    words_b: frozenset[bytes]


@lru_cache(maxsize=16)
def _trigger_table(only: frozenset[str] | None) -> _TriggerTable:
    """The rules of the predicates `only` (all for None) and their trigger words. Made once for each set: the statistical
    extractor makes a rule extractor for each document, and the demonym rules have hundreds of trigger words."""
    kept = rules(only)
    by_word: dict[str, list[int]] = {}
    for i, r in enumerate(kept):
        for w in r.triggers:
            by_word.setdefault(w.lower(), []).append(i)
    words = {k: tuple(v) for k, v in by_word.items()}
    ascii_words = {k.encode("ascii"): v for k, v in words.items() if k.isascii()}
    return _TriggerTable(kept, words, frozenset(words), ascii_words, frozenset(ascii_words))


@lru_cache(maxsize=1)
def predicate_hints() -> dict[str, tuple[str | None, str | None]]:
    """predicate name -> (subject class, object class) local names from ontology/taxonomy.ttl."""
    import pyoxigraph as ox

    from semantic_rdf.core import vocab
    from semantic_rdf.core.resources import files

    ns = vocab.NS
    names: dict[str, str] = {}
    sc: dict[str, str] = {}
    oc: dict[str, str] = {}
    for path in files("ontology", "*.ttl"):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            p = t.predicate.value
            if p == ns + "name":
                names[t.subject.value] = t.object.value
            elif p == ns + "subjectClass":
                sc[t.subject.value] = t.object.value.rsplit("#", 1)[-1]
            elif p == ns + "objectClass":
                oc[t.subject.value] = t.object.value.rsplit("#", 1)[-1]
    return {name: (sc.get(iri), oc.get(iri)) for iri, name in names.items()}


_SPECIFIC = frozenset({"Person", "Organization", "City", "Country", "Work", "Award", "Field", "Artifact", "Concept", "Place", "Event"})
# The classes whose values a common noun can name: "field_of_work physics", "instance_of village", "invented the
# telephone", "hippocampus part_of limbic system". Any other role takes a name, with a capital in it: on real
# text "Beliën published book" and "Seok authored book" stored phrases as entities (issue 17: no lower-case common
# nouns as entities).
_COMMON_NOUN_CLASSES = frozenset({"Concept", "Field", "Artifact", "Thing"})
# A common noun that can be an entity is none of these (docs/extraction.md, "Common nouns in the rules' facts"):
# a count ("several villages", "eight voices", "12 paragraphs", "many") ...
_QUANTITY = re.compile(
    r"^(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|hundred|hundreds|thousands|dozens|several|many|some|"
    r"various|numerous|few|most|all|both|each|multiple|other|others)\b)"
)
# ... or a class of named things written for one of them: "the city", "the group", "the series" stand for the
# place, band or show the text is about, which a common noun does not name ("city part_of network of large urban
# centres", "group has_part eight voices", "district has_part offices"). The head is the word before "of", or the last.
_CLASS_NOUNS = frozenset(
    "city town village area region district province county state country island lake river park palace castle "
    "church building site station line link road street bridge airport harbour port municipality community "
    "school college university academy company firm corporation group band team club party agency organization "
    "organisation network newspaper magazine label museum library hospital office service ministry council "
    "series album film movie song single novel book trilogy show game episode work treaty agreement doctrine "
    "battle war campaign engagement".split()
)


# ... or a phrase that points at what the text named elsewhere ("the following list has_part items", "new
# chloroplast genes successor_to old ones", "the eastern shores"), or that took in the adverb after it ("the
# orchestra originally has_part singers").
_POINTING = frozenset(
    "following preceding above below former latter same such other another new old next previous earlier later "
    "eastern western northern southern ones".split()
)
_ADVERBS = frozenset(_ADV_WORDS)


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


# The classes of a person's or a group's roles, and of what they make: a people is none of them ("married French
# politician Éric Besson" gave `spouse_of French`; "the daughter of Italian actors", `child_of Italian`)
_NOT_A_PEOPLE = frozenset({"Person", "Agent", "Organization", "Work", "Award"})


# A phrase with a name in it that opens with a lower-case word is a name and the words before it. One word before a
# name is a class noun or an adjective, and the name is the entity: "the comet Ollenshaw-Tarn", "industrial New
# Bohumín", "the worldwide Catholic Church", "the larger Black Hawk War of 1832". More than one, or a name that runs
# on in lower case, and the phrase is no entity: "seminal biography of the Russian military leader …", "south end of
# Osaka Bay", "so-called Golden Triangle of industrial cities". A name's own particle ("von Neumann architecture",
# "de Gaulle") and a one-word brand ("iPhone") are names. A phrase that ends in lower case may be a name too ("Linux
# kernel"), so only the opening is read.
# the lower-case words a name may open with ("von Neumann", "de Gaulle"; the statistical extractor's state reads them so)
NAME_PARTICLES = frozenset("de del della der des di du la le van von den ter al el bin ibn da dos das".split())
_NAME_JOINS = NAME_PARTICLES | frozenset("of the and & e y upon on".split())


def _name_without_opening(value: str) -> str | None:
    """`value` without the one lower-case word it opens with when the rest is a name; None when it opens with a
    lower-case word and is no such phrase; `value` itself otherwise (no lower-case opening, or no capital)."""
    first, _, rest = value.partition(" ")
    if not rest or not first[:1].islower() or first in NAME_PARTICLES or not any(ch.isupper() for ch in rest):
        return value
    words = rest.split()
    if all(w[:1].isupper() or w[:1].isdigit() or w in _NAME_JOINS for w in words) and words[0][:1].isupper() and words[-1] not in _NAME_JOINS:
        return rest
    return None


def _named_enough(value: str, cls: str | None) -> bool:
    """Whether `value` may fill a role whose class is `cls`: a name (a capital in it), and no people's where a
    person, a group or a work is meant; or, in a class a common noun can name, a common noun that is no count, no
    class of named things and points at nothing named elsewhere."""
    if any(ch.isupper() for ch in value):
        return cls not in _NOT_A_PEOPLE or not (gz.country_of_demonym(value) or gz.group_noun(value))
    if cls not in _COMMON_NOUN_CLASSES:
        return False
    if _QUANTITY.match(value):
        return False
    words = value.split()
    if words and (words[0] in _POINTING or words[-1] in _ADVERBS):
        return False
    head = value.split(" of ", 1)[0].split()
    return not head or _singular(head[-1]) not in _CLASS_NOUNS


_PLACE_CLASSES = frozenset({"Place", "City", "Country"})
_SOMEONE = frozenset({"Person", "Agent"})


def _placed(cands: Sequence[_Candidate], hints: Mapping[str, tuple[str | None, str | None]]) -> set[str]:
    """The names a sentence's candidates read as a place ("was born in Paris")."""
    return {c.o for c in cands if hints.get(c.p, (None, None))[1] in _PLACE_CLASSES}


def _as_someone(c: _Candidate, places: set[str], hints: Mapping[str, tuple[str | None, str | None]]) -> bool:
    """Whether `c` reads as a person or an agent a place's name: one its sentence reads as a place, or one of two
    words or more that the gazetteer lists as a country, city or first-level region. "Moreau was born in Paris, the
    daughter of Katherine" gave `Paris child_of Katherine` beside `Moreau born_in Paris` (one mention is one thing
    in one sentence; the place reading, from a preposition, is the surer), and "Born in New Jersey, the eldest son
    of …" `New Jersey child_of …`. One listed word may name a person as well ("Paris was born in Switzerland":
    Valeska Paris)."""
    hs, ho = hints.get(c.p, (None, None))
    return any(role in _SOMEONE and (name in places or (" " in name and gz.lexicon_class(name) is not None)) for role, name in ((hs, c.s), (ho, c.o)))


_NON_PERSON = frozenset({"Organization", "City", "Country", "Work", "Award", "Field", "Artifact", "Concept", "Place", "Event", "Thing"})

# ------------------------------------------------------------------ screening


# ------------------------------------------------------------------ the rule extractor


# A name that ends with an initialism keeps its full stop ("U.S.", "Washington, D.C."), in both extractors: the
# identity fold keeps full stops, so "U.S" and "U.S." were two entities. Only initialisms: the statistical
# tokenizer cuts "Jr." and "Inc." before their stop, so "Paul Desmarais Jr" is that name either way.
INITIALISM_END = re.compile(r"\b[A-Za-z]\.[A-Za-z]\.$")


@lru_cache(maxsize=65536)
def _clean(name: str) -> str:
    name = name.strip()
    kept = _TRAIL.sub("", name)
    name = name[: len(kept) + 1] if INITIALISM_END.search(name[: len(kept) + 1]) else kept
    name = _LEAD_DET.sub("", name)
    return " ".join(name.split())


@dataclass
class _Candidate:
    s: str
    p: str
    o: str
    score: float
    sent: int
    pron: tuple[str, str] = ("", "")  # the pronouns the subject and the object were read from ("" for a name)


class RuleExtractor:
    """Deterministic, offline pattern extractor for the 53-predicate taxonomy.

    gazetteer: name -> entity class ("Ørsted": "Organization"); such names are found whatever their case.
    floor: optional confidence floor; triples below it are dropped and counted in `counts["below_floor"]`.
    predicates: only the rules of these predicates are read (all by default).
    After each call, `entity_types` maps every entity name seen in a triple to its inferred class.
    Pronouns (he/she/his/her, it/its, they/their) resolve to the most recent compatible entity of the same
    document (for he/she a known person, or the person the document opens with: `_resolve`); chunks of one
    document should be extracted in order, its first chunk (start 0) first.
    """

    process_safe = True  # may run in a child process (ahead.py)

    agent = "rules-extractor"
    model = None

    def __init__(
        self,
        gazetteer: Mapping[str, str] | None = None,
        floor: float | None = None,
        *,
        max_sentence: int = 2000,
        predicates: Iterable[str] | None = None,
    ) -> None:
        self.floor = check_floor(floor)
        self.gazetteer: dict[str, str] = {}
        for name, cls in (gazetteer or {}).items():
            if not isinstance(name, str) or not name.strip() or not isinstance(cls, str) or not cls.strip():
                raise InvalidInput(f"gazetteer entries must be non-empty name -> class strings, got {name!r}: {cls!r}")
            self.gazetteer[" ".join(name.split())] = cls.strip()
        self._gaz_folded = {k.lower(): v for k, v in self.gazetteer.items()}
        # predicates: only the rules of these (the statistical extractor reads births, deaths, schools, spouses,
        # citizenships and headquarters so, with one rule extractor for each document)
        table = _trigger_table(None if predicates is None else frozenset(predicates))
        self.rules = table.rules
        self._by_trigger, self._triggers = table.by_word, table.words
        self._by_trigger_b, self._triggers_b = table.by_bytes, table.words_b
        self._rules_for: dict[frozenset, tuple[int, ...]] = {}  # trigger words found -> rules to try
        self._mention_rx = _NAME_FAST_RX
        if self.gazetteer:
            # a gazetteer name is an entity whatever its case ("polonium", "ørsted"), and wins over a shape match
            alts = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(self.gazetteer, key=len, reverse=True))
            self._mention_rx = re.compile(rf"(?i:(?<![\w])(?:{alts})(?![\w]))|{_NAME_CORE}")
        self.max_sentence = max_sentence
        self.entity_types: dict[str, str] = {}
        self._folded_types: dict[str, str] = {}
        # doc id -> (offset, last 2,000 characters of its latest chunk, their mentions if already found)
        self._doc_tails: OrderedDict[str, tuple[int, str, list | None]] = OrderedDict()
        self._topics: OrderedDict[str, str | None] = OrderedDict()  # doc id -> the name it opens with (`_topic`)
        self._strong: dict[str, str] = {}  # name -> class from the gazetteer or the built-in lexicons, "" for none
        self.counts: Counter[str] = Counter()
        self.hints = predicate_hints()
        # (doc id, evidence start, end, subject, predicate, object) -> the pronouns its subject and object were read
        # from ("" for a name), for the triples of the last documents read that read one (`pronouns_of`)
        self._pronouns: OrderedDict[tuple[str, int, int, str, str, str], tuple[str, str]] = OrderedDict()

    def pronouns_of(self, t: Triple) -> tuple[str, str]:
        """The pronouns a triple this extractor gave read its subject and its object from ("He" for "He died in
        Narvik", resolved to the person the sentence before named), "" for a side it read as a name."""
        key = (t.chunk.doc_id if t.chunk is not None else "", t.start or 0, t.end or 0, t.subject, t.predicate, t.object)
        return self._pronouns.get(key, ("", ""))

    # -- typing
    def entity_class(self, name: str) -> str | None:
        key = " ".join(name.split()).lower()
        return self._gaz_folded.get(key) or self._folded_types.get(key) or gz.builtin_class(name) or gz.suffix_class(name)

    def _note_type(self, name: str, cls: str | None) -> None:
        key = name.lower()
        strong = self._strong.get(name)
        if strong is None:
            if len(self._strong) > 100_000:
                self._strong.clear()
            strong = self._strong[name] = self._gaz_folded.get(key) or gz.builtin_class(name) or gz.suffix_class(name) or ""
        have = self._folded_types.get(key)
        if strong:
            new = strong
        elif have and have != "Thing":
            new = have
        elif cls in _SPECIFIC:
            new = cls
        else:
            new = have or "Thing"
        self._folded_types[key] = new
        self.entity_types[name] = new

    # -- pronouns
    def _mentions(self, text: str, offset: int) -> list[tuple[int, str, bool]]:
        """(document offset, name, opens a sentence as a single word) for every name in `text`."""
        out = []
        for m in self._mention_rx.finditer(text):
            name = _clean(m.group(0))
            if not name:
                continue
            before = text[max(0, m.start() - 3) : m.start()].rstrip()[-1:]
            out.append((offset + m.start(), name, (before == "" or before in '.!?\n"“') and " " not in name))
        return out

    def _mentions_of(
        self, prev_tail: tuple[int, str, list | None] | None, chunk: Chunk
    ) -> tuple[list[tuple[int, str, bool]], list[tuple[int, str, bool]]]:
        """(all mentions for pronoun resolution, the mentions of this chunk's own text)."""
        got: list[tuple[int, str, bool]] = []
        if prev_tail is not None and prev_tail[0] + len(prev_tail[1]) <= chunk.start:
            known = prev_tail[2]
            got = (known if known is not None else self._mentions(prev_tail[1], prev_tail[0]))[-40:]
        own = self._mentions(chunk.text, chunk.start)
        return got + own, own

    def _topic(self, text: str) -> str | None:
        """The name a text (a document, or a sentence for `_lead`) opens with, when it can be the person the text
        is about ("Henrik Angell was a Norwegian military officer."): two words or more, or a known person; no
        place, people or organisation."""
        m = self._mention_rx.search(text, 0, min(len(text), 400))
        if m is None or text[: m.start()].strip(" \t\r\n#*>\"“'"):
            return None
        name = _clean(m.group(0))
        return name if name and self._person_like(name) else None

    def _person_like(self, name: str) -> bool:
        """A name that can be a person's: typed Person, or untyped of two words or more; no place or people."""
        if gz.country_of_demonym(name) or gz.lexicon_class(name):
            return False
        cls = self.entity_class(name)
        return cls == "Person" or (cls is None and " " in name)

    def _lead(self, text: str, spans: Sequence[tuple[int, int]], k: int) -> str | None:
        """For a he/she that opens sentence k: the person the sentence before opened with, as written there (a
        name that can be a person, `_topic`), or, when that one opened with he/she too, the one before it's.
        Within the chunk; None when it opened otherwise. In a file about several people the document's first
        person had taken every "He"/"She" that no typed person stood near ("Chinua Achebe was a Nigerian
        novelist. He was born in Ogidi." gave Ogidi to the first paragraph's Paul Desmarais)."""
        for j in range(k - 1, max(-1, k - 9), -1):
            a, b = spans[j]
            sent = text[a:b]
            if _opens_with(sent, ("he", "she")):
                continue
            name = self._topic(sent)
            if name is None or sent.lstrip()[len(name) : len(name) + 2] in ("'s", "’s"):
                return None  # "Alice Smith's sister is Nadia Jones. She …": the sister, not the one named first
            others = {x for x in (_clean(m.group(0)) for m in self._mention_rx.finditer(sent)) if x and x != name and self._person_like(x)}
            return None if others else name  # "Barack Obama met Angela Merkel. She …": either of them
        return None

    def _resolve(
        self,
        pronoun: str,
        at: int,
        mentions: list[tuple[int, str, bool]],
        starts: list[int],
        topic: str | None = None,
        agents: AbstractSet[str] = frozenset(),
    ) -> str | None:
        """The name a pronoun stands for: the nearest compatible name before it. He or she stands only for a
        known person, the name the document opens with (`topic`) or a name its own sentence reads as a person
        (`agents`): on real text the nearest other name before "he" is as often a place, a team or a book as a
        person (docs/extraction.md, "Pronouns on real text")."""
        kind = _PRONOUN_VALUE.get(pronoun.lower())
        if kind is None:
            return None
        i = bisect.bisect_left(starts, at)
        for j in range(i - 1, max(-1, i - 41), -1):
            _, name, opener = mentions[j]
            cls = self.entity_class(name)
            if opener and cls is None:
                continue  # a lone capitalised word opening a sentence is too often not a name
            if kind == "person" and (cls is None or cls in ("Person", "Agent", "Thing")):
                if cls in (None, "Thing") and name.lower() in _PRONOUN_VALUE:
                    continue
                if gz.country_of_demonym(name) or gz.lexicon_class(name):
                    continue  # "a Norwegian officer. He died …" is not about Norway's people, nor about Ontario
                if cls == "Person" or name in agents:
                    return name
                if topic is not None and set(name.split()) <= set(topic.split()):
                    return name  # the topic, or its surname alone ("Chao" for Yuen Ren Chao), as written there
                continue
            if kind == "thing" and cls in _NON_PERSON and cls != "Thing":
                return name
            if kind == "group" and cls == "Organization":
                return name
        if kind == "person" and topic is not None:
            return topic  # no other person within reach: the one the document is about
        return None

    # -- main entry
    def _wanted(self, text: str, spans: Sequence[tuple[int, int]]) -> dict[int, tuple[int, ...]]:
        """Sentence index -> the rules (ascending) whose trigger words it holds. A trigger counts as a whole
        letter run, exactly what _WORD tokenises; ASCII sentences go through bytes.translate/split at C speed."""
        lower = text.lower()
        trig, trig_b = self._triggers, self._triggers_b
        rules_for = self._rules_for
        wanted: dict[int, tuple[int, ...]] = {}
        for k, (a, b) in enumerate(spans):
            seg = lower[a:b]
            hits: frozenset[bytes] | frozenset[str]
            if seg.isascii():
                hits = trig_b.intersection(seg.encode("ascii").translate(_LETTERS_ONLY).split())
            else:
                hits = trig.intersection(_WORD.findall(seg))
            if hits:
                got = rules_for.get(hits)
                if got is None:
                    if len(rules_for) > 4096:
                        rules_for.clear()
                    by = self._by_trigger
                    got = rules_for[hits] = tuple(sorted({ri for w in hits for ri in by[w.decode() if isinstance(w, bytes) else w]}))
                wanted[k] = got
        return wanted

    def _shadow(self, sent: str) -> tuple[str, list[str], list[int]]:
        """The sentence with every name replaced by a token \ue000<i>\ue001, the names in order, and where
        each token starts in the shadow."""
        if "\ue000" in sent or "\ue001" in sent:
            sent = _PRIVATE.sub(" ", sent)
        names: list[str] = []
        parts: list[str] = []
        at: list[int] = []
        pos = 0
        size = 0
        for m in self._mention_rx.finditer(sent):
            if m.group() in _ERAS:
                continue  # "106 BC" is a date (`_LIFE_YEAR`), "BC" no one's name
            a = m.start()
            if a > pos:
                parts.append(sent[pos:a])
                size += a - pos
            tok = f"\ue000{len(names)}\ue001"
            parts.append(tok)
            at.append(size)
            size += len(tok)
            names.append(m.group() + "." if sent[m.end() : m.end() + 1] == "." and INITIALISM_END.search(m.group() + ".") else m.group())
            pos = m.end()
        if not names:
            return sent, names, at
        parts.append(sent[pos:])
        return "".join(parts), names, at

    def extract(self, chunk: Chunk, *, spans: list[tuple[int, int]] | None = None) -> list[Triple]:
        """The triples of one chunk. `spans`: the chunk's `sentence_spans(chunk.text)`, when the caller has made them
        already (the statistical extractor reads its chunk so too)."""
        check_chunk(chunk)
        text = chunk.text
        spans = sentence_spans(text) if spans is None else spans
        if not spans:
            return []
        # which rules can fire where: the trigger words present in each sentence
        wanted = self._wanted(text, spans)
        # earlier chunks of the same document feed pronoun resolution (mentions found only if a pronoun needs them)
        prev_tail = self._doc_tails.get(chunk.doc_id)
        if chunk.start == 0:  # the document's first chunk (read again: the document again)
            self._topics[chunk.doc_id] = self._topic(text)
            self._topics.move_to_end(chunk.doc_id)
            while len(self._topics) > 256:
                self._topics.popitem(last=False)
        mentions: list[tuple[int, str, bool]] | None = None
        own_mentions: list[tuple[int, str, bool]] | None = None
        mention_starts: list[int] = []
        out: list[Triple] = []
        all_rules = self.rules
        for k in sorted(wanted):
            a, b = spans[k]
            sent = text[a:b]
            if len(sent) > self.max_sentence or sent.rstrip().endswith("?"):
                continue
            shadow, names, token_at = self._shadow(sent)
            n = len(names)
            pron_at: list[int] | None = None
            first = shadow[:1]
            opens = first == "\ue000" or "a" <= first <= "z"
            cands: list[_Candidate] = []
            ctx: list | None = None
            starts: list[int] | None = None
            for ri in wanted[k]:
                rule = all_rules[ri]
                # prefilter: a rule whose mandatory name slots outnumber the names (and pronouns) cannot match
                if n < rule.min_names or (rule.opens_with_name and not opens):
                    continue
                needs_pronoun = rule.min_agents and n < rule.min_names + rule.min_agents
                if pron_at is None and (needs_pronoun or rule.opens_with_agent):
                    pron_at = [m.start() for m in _PRON_AT.finditer(shadow)]
                if needs_pronoun and not pron_at:
                    continue
                found: Iterable[re.Match[str]]
                if rule.opens_with_agent:
                    # a match can only begin at a name token or a pronoun: try the regex there alone
                    if starts is None:
                        starts = sorted(token_at + pron_at) if pron_at else token_at
                    found = _matches_at(rule.regex, shadow, starts)
                else:
                    found = rule.regex.finditer(shadow)
                for m in found:
                    if ctx is None:
                        ctx = [{f"\ue000{i}\ue001": v for i, v in enumerate(names)}, names, _NEG_LOOSE.search(shadow) is not None]
                    got = self._from_match(rule, m, shadow, ctx, k)
                    if got:
                        cands.extend(got)
            if not cands:
                continue
            best: dict[tuple[str, str], _Candidate] = {}
            agents: set[str] | None = None
            places = _placed(cands, self.hints)
            for c in cands:
                if _as_someone(c, places, self.hints):
                    self.counts["place_as_person"] += 1
                    continue
                fs, fo = c.s.lower(), c.o.lower()
                ps, po = fs in _PRONOUN_VALUE, fo in _PRONOUN_VALUE
                if ps or po:
                    if mentions is None:
                        mentions, own_mentions = self._mentions_of(prev_tail, chunk)
                        mention_starts = [mm[0] for mm in mentions]
                    at = chunk.start + a + max(0, sent.find(c.s if ps else c.o))
                    if agents is None:  # who this sentence names as a person ("Marcel Roche moved to X, where he …")
                        agents = {x.s for x in cands if self.hints.get(x.p, ("", ""))[0] in ("Person", "Agent")}
                    topic = self._topics.get(chunk.doc_id)
                    lead = self._lead(text, spans, k) if ps and fs in ("he", "she") and _opens_with(sent, (fs,)) else None
                    s_ = (lead or self._resolve(c.s, at, mentions, mention_starts, topic, agents)) if ps else c.s
                    o_ = self._resolve(c.o, at, mentions, mention_starts, topic, agents) if po else c.o
                    if s_ is None or o_ is None:
                        self.counts["unresolved_pronoun"] += 1
                        continue
                    c = _Candidate(s_, c.p, o_, round(c.score * 0.9, 4), c.sent, (c.s if ps else "", c.o if po else ""))
                    fs, fo = c.s.lower(), c.o.lower()
                if fs == fo:
                    continue
                key = (fs, fo) if fs <= fo else (fo, fs)
                if key not in best or c.score > best[key].score:
                    best[key] = c
            if not best:
                continue
            valid = sentence_validity(sent)
            hints, note = self.hints, self._note_type
            ta, tb = chunk.start + a, chunk.start + b
            for c in best.values():
                if len(c.s) > MAX_NAME or len(c.o) > MAX_NAME:  # not a name (values.MAX_NAME): skipped, not fatal
                    continue
                hs, ho = hints.get(c.p, (None, None))
                s_, o_ = _name_without_opening(c.s), _name_without_opening(c.o)
                if s_ is None or o_ is None or not (_named_enough(s_, hs) and _named_enough(o_, ho)):
                    self.counts["not_a_name"] += 1
                    continue
                c = _Candidate(s_, c.p, o_, c.score, c.sent, c.pron)
                note(c.s, hs)
                note(c.o, ho)
                out.append(Triple(c.s, c.p, c.o, chunk, c.score, valid, ta, tb))
                if c.pron != ("", ""):
                    self._pronouns[(chunk.doc_id, ta, tb, c.s, c.p, c.o)] = c.pron
                    while len(self._pronouns) > 100_000:
                        self._pronouns.popitem(last=False)
        # remember the end of this chunk for pronouns at the start of the next chunk of the document
        # (the mentions of this chunk serve again when the tail is the whole chunk, at the same offset)
        whole = own_mentions is not None and len(text) <= 2000 and chunk.end - len(text) == chunk.start
        self._doc_tails[chunk.doc_id] = (chunk.end - min(len(text), 2000), text[-2000:], own_mentions if whole else None)
        self._doc_tails.move_to_end(chunk.doc_id)
        while len(self._doc_tails) > 256:
            self._doc_tails.popitem(last=False)
        self.counts["emitted"] += len(out)
        if self.floor is not None:
            sc = screen(out, self.floor)
            self.counts["below_floor"] += len(sc.below_floor)
            self.counts["out_of_vocabulary"] += len(sc.out_of_vocabulary)
            out = list(sc.kept)
        return out

    def _from_match(self, rule: Rule, m: re.Match[str], sent: str, ctx: list, k: int) -> list[_Candidate] | None:
        """Candidates from one match. ctx = [token -> name, names in order, may the sentence hold a negation]."""
        gs, go = m.group("s", "o")
        if not gs or not go:
            return None  # (a name token never stands for an empty name, so this is decided before substituting)
        tokens, names_, neg = ctx
        if neg and _NEG.search(sent, m.start(), m.end()):
            return None  # "was not born in", "never married": a negated phrasing asserts nothing
        s, o = _back(gs, tokens, names_), _back(go, tokens, names_)
        g: dict[str, str | None] = {"s": s, "o": o}
        for extra in rule.extra_groups:
            g[extra] = _back(m.group(extra), tokens, names_)
        for role, check in rule.checks:
            v = g.get(role)
            if v is None or not _CHECKS[check].search(v):
                return None
        x = g.get("x")
        if x is not None and not _CIPHER.search(x):
            return None
        born, died = g.get("y") or g.get("y2"), g.get("z") or g.get("z2")
        if born and died and abs(_year(died) - _year(born)) < 10:
            return None  # a life's parenthesis spans ten years or more (`_DATE_Y`)
        subs = self._names(rule, "s", s)
        s2 = g.get("s2")
        if s2:
            subs = subs + self._names(rule, "s2", s2)
        objs = self._names(rule, "o", o)
        return [_Candidate(sub, rule.predicate, obj, rule.score, k) for sub in subs for obj in objs]

    @staticmethod
    def _names(rule: Rule, role: str, v: str) -> list[str]:
        parts = _LIST_SPLIT.split(v) if role in rule.lists else (v,)
        out = []
        for p in parts:
            p = _clean(p)
            if not p or len(p) > 120:
                continue
            if role in rule.demonyms:
                country = gz.country_of_demonym(p)
                if country is None:
                    continue
                p = country
            out.append(p)
        return out


@overload
def _back(v: str, tokens: dict[str, str], names: list[str]) -> str: ...
@overload
def _back(v: str | None, tokens: dict[str, str], names: list[str]) -> str | None: ...
def _back(v: str | None, tokens: dict[str, str], names: list[str]) -> str | None:
    """A matched slot with its name tokens put back."""
    if v is None:
        return None
    got = tokens.get(v)
    if got is not None:
        return got
    if "\ue000" not in v:
        return v
    return _TOK_RX.sub(lambda t: names[int(t.group(0)[1:-1])], v)


# ------------------------------------------------------------------ the registry's extractors
# Kind "extractor" of semantic_rdf/core/plugins.py: each factory takes the options that apply to it, by
# keyword; `semantic-rdf ingest --extractor NAME` passes --floor, --gazetteer and the model it was given.


def make_rule_extractor(*, gazetteer: Mapping[str, str] | None = None, floor: float | None = None) -> RuleExtractor:
    """ "rules": the pattern extractor, with an optional gazetteer of name -> class."""
    return RuleExtractor(gazetteer, floor)


def make_no_extractor() -> None:
    """ "none": store the documents only."""
    return None
