"""Small built-in lexicons the rule extractor types entities with.

Only names whose class is (nearly) unambiguous are listed: sovereign countries and their
demonyms, and large or well-known cities. A user gazetteer (name -> class) passed to
`RuleExtractor` always wins over these. Class names are the local names of the entity
classes in ontology/semantic.ttl (Person, City, Country, Organization, Work, Award, Field,
Artifact, Concept, Place, Event).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["CLASSES", "COUNTRIES", "DEMONYMS", "CITIES", "builtin_class", "suffix_class", "country_of_demonym", "group_noun"]

CLASSES = frozenset(
    {"Thing", "Agent", "Person", "Organization", "Place", "City", "Country", "Work", "Award", "Field", "Artifact", "Concept", "Event"}
)

# demonym -> country name
DEMONYMS: dict[str, str] = {
    "Afghan": "Afghanistan",
    "Albanian": "Albania",
    "Algerian": "Algeria",
    "American": "United States",
    "Argentine": "Argentina",
    "Argentinian": "Argentina",
    "Armenian": "Armenia",
    "Australian": "Australia",
    "Austrian": "Austria",
    "Belgian": "Belgium",
    "Bolivian": "Bolivia",
    "Brazilian": "Brazil",
    "British": "United Kingdom",
    "Bulgarian": "Bulgaria",
    "Canadian": "Canada",
    "Chilean": "Chile",
    "Chinese": "China",
    "Colombian": "Colombia",
    "Croatian": "Croatia",
    "Cuban": "Cuba",
    "Czech": "Czech Republic",
    "Danish": "Denmark",
    "Dutch": "Netherlands",
    "Egyptian": "Egypt",
    "Estonian": "Estonia",
    "Ethiopian": "Ethiopia",
    "Finnish": "Finland",
    "French": "France",
    "Georgian": "Georgia",
    "German": "Germany",
    "Ghanaian": "Ghana",
    "Greek": "Greece",
    "Hungarian": "Hungary",
    "Icelandic": "Iceland",
    "Indian": "India",
    "Indonesian": "Indonesia",
    "Iranian": "Iran",
    "Iraqi": "Iraq",
    "Irish": "Ireland",
    "Israeli": "Israel",
    "Italian": "Italy",
    "Japanese": "Japan",
    "Kenyan": "Kenya",
    "Korean": "Korea",
    "Latvian": "Latvia",
    "Lithuanian": "Lithuania",
    "Mexican": "Mexico",
    "Moroccan": "Morocco",
    "Nepalese": "Nepal",
    "Nigerian": "Nigeria",
    "Norwegian": "Norway",
    "Pakistani": "Pakistan",
    "Peruvian": "Peru",
    "Filipino": "Philippines",
    "Polish": "Poland",
    "Portuguese": "Portugal",
    "Romanian": "Romania",
    "Russian": "Russia",
    "Scottish": "Scotland",
    "Serbian": "Serbia",
    "Slovak": "Slovakia",
    "Slovenian": "Slovenia",
    "South African": "South Africa",
    "Spanish": "Spain",
    "Swedish": "Sweden",
    "Swiss": "Switzerland",
    "Syrian": "Syria",
    "Thai": "Thailand",
    "Turkish": "Turkey",
    "Ukrainian": "Ukraine",
    "Uruguayan": "Uruguay",
    "Venezuelan": "Venezuela",
    "Vietnamese": "Vietnam",
    "Welsh": "Wales",
    "English": "England",
    "New Zealand": "New Zealand",
    # the other sovereign states (and some former ones Wikipedia text names) whose demonym is not mostly
    # something else: not "Chadian" (Chad is a first name), "Congolese" or "Dominican" (two countries each),
    # "Macedonian" (a region and a language too)
    "Andorran": "Andorra",
    "Angolan": "Angola",
    "Azerbaijani": "Azerbaijan",
    "Bahamian": "Bahamas",
    "Bahraini": "Bahrain",
    "Bangladeshi": "Bangladesh",
    "Barbadian": "Barbados",
    "Belarusian": "Belarus",
    "Belizean": "Belize",
    "Beninese": "Benin",
    "Bhutanese": "Bhutan",
    "Bosnian": "Bosnia and Herzegovina",
    "Bruneian": "Brunei",
    "Burmese": "Myanmar",
    "Burundian": "Burundi",
    "Cambodian": "Cambodia",
    "Cameroonian": "Cameroon",
    "Costa Rican": "Costa Rica",
    "Cypriot": "Cyprus",
    "Djiboutian": "Djibouti",
    "East German": "East Germany",
    "Ecuadorian": "Ecuador",
    "Emirati": "United Arab Emirates",
    "Equatorial Guinean": "Equatorial Guinea",
    "Eritrean": "Eritrea",
    "Fijian": "Fiji",
    "Gabonese": "Gabon",
    "Gambian": "Gambia",
    "Grenadian": "Grenada",
    "Guatemalan": "Guatemala",
    "Guyanese": "Guyana",
    "Haitian": "Haiti",
    "Honduran": "Honduras",
    "Ivorian": "Ivory Coast",
    "Jamaican": "Jamaica",
    "Jordanian": "Jordan",
    "Kazakh": "Kazakhstan",
    "Kazakhstani": "Kazakhstan",
    "Kuwaiti": "Kuwait",
    "Kyrgyz": "Kyrgyzstan",
    "Laotian": "Laos",
    "Lebanese": "Lebanon",
    "Liberian": "Liberia",
    "Libyan": "Libya",
    "Luxembourgish": "Luxembourg",
    "Malagasy": "Madagascar",
    "Malawian": "Malawi",
    "Malaysian": "Malaysia",
    "Maldivian": "Maldives",
    "Malian": "Mali",
    "Maltese": "Malta",
    "Mauritanian": "Mauritania",
    "Mauritian": "Mauritius",
    "Moldovan": "Moldova",
    "Monegasque": "Monaco",
    "Mongolian": "Mongolia",
    "Montenegrin": "Montenegro",
    "Mozambican": "Mozambique",
    "Namibian": "Namibia",
    "Nepali": "Nepal",
    "Nicaraguan": "Nicaragua",
    "Nigerien": "Niger",
    "North Korean": "North Korea",
    "Northern Irish": "Northern Ireland",
    "Omani": "Oman",
    "Palestinian": "Palestine",
    "Panamanian": "Panama",
    "Papua New Guinean": "Papua New Guinea",
    "Paraguayan": "Paraguay",
    "Puerto Rican": "Puerto Rico",
    "Qatari": "Qatar",
    "Rwandan": "Rwanda",
    "Salvadoran": "El Salvador",
    "Samoan": "Samoa",
    "Saudi": "Saudi Arabia",
    "Saudi Arabian": "Saudi Arabia",
    "Senegalese": "Senegal",
    "Sierra Leonean": "Sierra Leone",
    "Singaporean": "Singapore",
    "Somali": "Somalia",
    "South Korean": "South Korea",
    "South Sudanese": "South Sudan",
    "Soviet": "Soviet Union",
    "Sri Lankan": "Sri Lanka",
    "Sudanese": "Sudan",
    "Surinamese": "Suriname",
    "Taiwanese": "Taiwan",
    "Tajik": "Tajikistan",
    "Tanzanian": "Tanzania",
    "Togolese": "Togo",
    "Tongan": "Tonga",
    "Trinidadian": "Trinidad and Tobago",
    "Tunisian": "Tunisia",
    "Turkmen": "Turkmenistan",
    "Ugandan": "Uganda",
    "Uzbek": "Uzbekistan",
    "West German": "West Germany",
    "Yemeni": "Yemen",
    "Yugoslav": "Yugoslavia",
    "Czechoslovak": "Czechoslovakia",
    "Zambian": "Zambia",
    "Zimbabwean": "Zimbabwe",
}

COUNTRIES = frozenset(
    set(DEMONYMS.values())
    | {
        "United States of America",
        "USA",
        "UK",
        "Great Britain",
        "Soviet Union",
        "America",
        "Holland",
        "Luxembourg",
        "Monaco",
        "Singapore",
        "Tanzania",
        "Uganda",
        "Zimbabwe",
        "Zambia",
        "Senegal",
        "Tunisia",
        "Lebanon",
        "Jordan",
        "Saudi Arabia",
        "Qatar",
        "Malaysia",
        "Bangladesh",
        "Sri Lanka",
        "Mongolia",
        "Kazakhstan",
        "Belarus",
        "Moldova",
        "Cyprus",
        "Malta",
        "Ecuador",
        "Paraguay",
        "Panama",
        "Costa Rica",
        "Jamaica",
        "Haiti",
        "Nicaragua",
        "Honduras",
        "Guatemala",
        "Northern Ireland",
        "Australia",
        # other names of the states above, and states named without a demonym here
        "The Bahamas",
        "Burma",
        "Côte d'Ivoire",
        "Czechia",
        "Democratic Republic of the Congo",
        "Republic of the Congo",
        "Dominican Republic",
        "Dominica",
        "North Macedonia",
        "Botswana",
        "Burkina Faso",
        "Cape Verde",
        "Comoros",
        "Lesotho",
        "Eswatini",
        "Liechtenstein",
        "San Marino",
        "Vatican City",
        "Seychelles",
        "East Timor",
        "Solomon Islands",
        "Vanuatu",
        "Ottoman Empire",
        "Austria-Hungary",
        "Prussia",
    }
)

CITIES = frozenset(
    {
        "Amsterdam",
        "Athens",
        "Auckland",
        "Baghdad",
        "Bangkok",
        "Barcelona",
        "Beijing",
        "Beirut",
        "Belgrade",
        "Berlin",
        "Bern",
        "Bogotá",
        "Bombay",
        "Bonn",
        "Boston",
        "Brussels",
        "Bucharest",
        "Budapest",
        "Buenos Aires",
        "Cairo",
        "Calcutta",
        "Cambridge",
        "Canberra",
        "Cape Town",
        "Caracas",
        "Chicago",
        "Copenhagen",
        "Delhi",
        "Dublin",
        "Edinburgh",
        "Florence",
        "Frankfurt",
        "Geneva",
        "Glasgow",
        "Hamburg",
        "Havana",
        "Helsinki",
        "Hong Kong",
        "Istanbul",
        "Jakarta",
        "Jerusalem",
        "Kyiv",
        "Kiev",
        "Kraków",
        "Krakow",
        "Kyoto",
        "Lagos",
        "Leipzig",
        "Lima",
        "Lisbon",
        "Ljubljana",
        "London",
        "Los Angeles",
        "Lyon",
        "Madrid",
        "Manchester",
        "Manila",
        "Marseille",
        "Melbourne",
        "Mexico City",
        "Milan",
        "Montreal",
        "Montréal",
        "Moscow",
        "Mumbai",
        "Munich",
        "München",
        "Nairobi",
        "Naples",
        "New Delhi",
        "New York",
        "New York City",
        "Nice",
        "Oslo",
        "Ottawa",
        "Oxford",
        "Paris",
        "Philadelphia",
        "Prague",
        "Princeton",
        "Quebec City",
        "Reykjavík",
        "Riga",
        "Rio de Janeiro",
        "Rome",
        "Rotterdam",
        "Saint Petersburg",
        "San Francisco",
        "Santiago",
        "São Paulo",
        "Sarajevo",
        "Seattle",
        "Seoul",
        "Shanghai",
        "Singapore",
        "Sofia",
        "Stockholm",
        "Sydney",
        "Tallinn",
        "Tehran",
        "Tel Aviv",
        "Tokyo",
        "Toronto",
        "Toulouse",
        "Turin",
        "Ulm",
        "Vancouver",
        "Venice",
        "Vienna",
        "Vilnius",
        "Warsaw",
        "Washington",
        "Wellington",
        "Zagreb",
        "Zurich",
        "Zürich",
        "Łódź",
        "Gdańsk",
        "Wrocław",
        "Poznań",
        "Salzburg",
        "Espoo",
        "Aarhus",
        "Odense",
        "Gothenburg",
        "Bergen",
    }
)

_SUFFIX_CLASS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:Prize|Award|Awards|Medal|Trophy|Cup|Laureateship|Fellowship)\b"), "Award"),
    (
        re.compile(
            r"\b(?:University|Universität|Université|Universidad|Università|College|Institute|Institut|Instituto|"
            r"Academy|Académie|Akademie|School|Society|Company|Corporation|Corp|Inc|Ltd|LLC|GmbH|AG|plc|Group|"
            r"Foundation|Laboratory|Laboratories|Labs|Agency|Association|Council|Committee|Commission|Organization|"
            r"Organisation|Union|League|Club|Party|Ministry|Department|Bank|Museum|Library|Observatory|Hospital|"
            r"Studios?|Records|Press|Airlines|Railways?|Motors|Motor|Industries|Holdings|Systems|Technologies|"
            r"Orchestra|Band|Church|Conservatory|Conservatoire|Bureau|Office|Service|Navy|Army|Guild|Order|Auto)\b"
        ),
        "Organization",
    ),
    (
        re.compile(
            r"\b(?:City|Town|Village|County|Province|State|Kingdom|Republic|Island|Islands|River|Lake|"
            r"Mountains?|Mount|Desert|Valley|Peninsula|Sea|Ocean|Bay|Coast|Region|District|Park)\b"
        ),
        "Place",
    ),
]

_PERSON_TITLE = re.compile(
    r"^(?:Sir|Dame|Lord|Lady|King|Queen|Prince|Princess|Saint|St\.|Pope|Emperor|Empress|"
    r"Dr\.?|Prof\.?|Mr\.?|Mrs\.?|Ms\.?)\s"
)

_FOLDED_COUNTRIES = {c.casefold(): "Country" for c in COUNTRIES}
_FOLDED_CITIES = {c.casefold(): "City" for c in CITIES}
_FOLDED_DEMONYMS = {k.casefold(): v for k, v in DEMONYMS.items()}


@lru_cache(maxsize=65536)  # pure, and called for every name of every triple
def builtin_class(name: str) -> str | None:
    """Country or City for a listed name (case-insensitive), else None."""
    key = name.casefold()
    return _FOLDED_COUNTRIES.get(key) or _FOLDED_CITIES.get(key)


@lru_cache(maxsize=65536)  # pure, and called for every name of every triple
def suffix_class(name: str) -> str | None:
    """A class guessed from a head word in the name ("… University" -> Organization), or a title -> Person."""
    if _PERSON_TITLE.match(name):
        return "Person"
    for rx, cls in _SUFFIX_CLASS:
        if rx.search(name):
            return cls
    return None


def country_of_demonym(word: str) -> str | None:
    return _FOLDED_DEMONYMS.get(word.casefold())


# A faith's followers name a people, as a plural demonym does ("Americans"): no entity a fact is about. Singular
# forms only where they are no given name or common adjective of a name ("Christian Dior", "Catholic University").
_FAITH_SINGULAR = frozenset({"muslim", "jew", "hindu", "sikh", "buddhist", "jain", "mormon"})
_FAITH_PLURAL_ONLY = frozenset({"christian", "catholic", "protestant", "anglican", "lutheran", "methodist", "baptist", "quaker"})


def group_noun(name: str) -> bool:
    """True for a word naming a people or a faith's followers rather than an entity: a demonym's plural
    ("Americans", "Germans") or a faith's followers ("Muslims", "Jew", "Catholics")."""
    key = name.casefold()
    if key in _FAITH_SINGULAR:
        return True
    one = key[:-1] if key.endswith("s") else ""
    return bool(one) and (one in _FOLDED_DEMONYMS or one in _FAITH_SINGULAR or one in _FAITH_PLURAL_ONLY)
