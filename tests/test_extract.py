"""The rule extractor: entities, pronouns, spans, typed literals, valid time, rules, screening, quality."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semantic_rdf.core import vocab
from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.pipeline.dates import XSD, literals, sentence_validity
from semantic_rdf.pipeline.extract import RuleExtractor, rules, sentence_spans
from semantic_rdf.pipeline.screening import screen
from semantic_rdf.core.identity import fold
from semantic_rdf.core.values import Chunk, Doc, Triple

GOLD = Path(__file__).parent / "data" / "extraction_gold.jsonl"


def chunk_of(text: str, doc_id: str = "d", start: int = 0, index: int = 0) -> Chunk:
    return Chunk(doc_id, index, text, start, start + len(text))


def facts(triples) -> set[tuple[str, str, str]]:
    return {(t.subject, t.predicate, t.object) for t in triples}


@pytest.fixture(scope="module")
def ex() -> RuleExtractor:
    return RuleExtractor()


# ------------------------------------------------------------------ entities


def test_non_ascii_names_are_returned_as_written(ex):
    out = RuleExtractor().extract(chunk_of("Hans Christian Ørsted was born in Rudkøbing. Łukasiewicz moved to Montréal."))
    assert ("Hans Christian Ørsted", "born_in", "Rudkøbing") in facts(out)
    assert ("Łukasiewicz", "moved_to", "Montréal") in facts(out)


def test_multiword_names_with_particles_initials_and_hyphens():
    got = facts(
        RuleExtractor().extract(
            chunk_of(
                "Ludwig van Beethoven was a student of Joseph Haydn. The electron was discovered by J. J. Thomson. "
                "Irène Joliot-Curie was the daughter of Marie Curie."
            )
        )
    )
    assert ("Ludwig van Beethoven", "student_of", "Joseph Haydn") in got
    assert ("J. J. Thomson", "discovered", "electron") in got
    assert ("Irène Joliot-Curie", "child_of", "Marie Curie") in got


def test_entity_types_come_from_lexicons_suffixes_and_predicate_hints():
    ex = RuleExtractor()
    ex.extract(
        chunk_of(
            "Lise Meitner worked at the Kaiser Wilhelm Institute. Marie Curie was born in Warsaw. "
            "Dorothy Hodgkin received the Copley Medal. Plato taught Aristotle."
        )
    )
    types = ex.entity_types
    assert types["Kaiser Wilhelm Institute"] == "Organization"
    assert types["Warsaw"] == "City"
    assert types["Copley Medal"] == "Award"
    assert types["Marie Curie"] == "Person"  # subject class of born_in
    assert types["Aristotle"] == "Person"


def test_gazetteer_finds_lower_case_names_and_types_them():
    ex = RuleExtractor(gazetteer={"polonium": "Concept", "Ørsted A/S": "Organization"})
    out = ex.extract(chunk_of("Ørsted A/S is headquartered in Fredericia. The chemist Marie Curie discovered polonium."))
    got = facts(out)
    assert ("Ørsted A/S", "headquartered_in", "Fredericia") in got
    assert ("Marie Curie", "discovered", "polonium") in got
    assert ex.entity_types["polonium"] == "Concept"
    assert ex.entity_types["Ørsted A/S"] == "Organization"


@pytest.mark.parametrize("bad", [{"": "Person"}, {"X": ""}, {"X": 3}])
def test_bad_gazetteer_is_refused(bad):
    with pytest.raises(InvalidInput):
        RuleExtractor(gazetteer=bad)


def test_predicates_keep_only_their_rules():
    """RuleExtractor(predicates=...): only the rules of those predicates are read (the statistical extractor reads
    births, deaths, schools and spouses so); every rule by default."""
    text = "Oskar Brandt was born in Tromsø. He died in Narvik in 1950. He founded Brandt Shipping."
    everything = facts(RuleExtractor().extract(chunk_of(text)))
    assert {p for _, p, _ in everything} >= {"born_in", "died_in", "founded"}
    assert facts(RuleExtractor(predicates={"died_in"}).extract(chunk_of(text))) == {f for f in everything if f[1] == "died_in"}
    assert {r.predicate for r in RuleExtractor(predicates=["born_in", "spouse_of"]).rules} == {"born_in", "spouse_of"}
    assert RuleExtractor(predicates=()).extract(chunk_of(text)) == []
    # the rules and their trigger words are made once for each set of predicates (one rule extractor for each of the
    # statistical extractor's documents): a second extractor of the same reads the same
    again = RuleExtractor(predicates={"died_in"})
    assert again.rules == RuleExtractor(predicates=["died_in"]).rules
    assert facts(again.extract(chunk_of(text))) == {f for f in everything if f[1] == "died_in"}


@pytest.mark.parametrize(
    "text, want",
    [
        ("Pointr is a startup company based in London specialized in indoor positioning.", {("Pointr", "London")}),
        (
            "The National Turkey Federation (NTF) is the national trade association based in Washington, D.C.",
            {("National Turkey Federation", "Washington")},
        ),
        (
            "Nokia Corporation is a Finnish multinational telecommunications company headquartered in Espoo, Finland.",
            {("Nokia Corporation", "Espoo")},
        ),
        # a person, a team or a band is based in a town; a name inside the sentence is read from its start only
        ("Delia Gallagher is an American journalist based in Rome.", set()),
        ("The Beijing Ducks are a professional basketball team based in Beijing.", set()),
        ("Shihlin Electric and Engineering Corporation is a company based in Taipei.", set()),
        ("Acme is a company of Bob Smith based in Paris.", set()),
    ],
)
def test_where_a_company_is_based_is_its_headquarters(ex, text, want):
    assert {(s, o) for s, p, o in facts(ex.extract(chunk_of(text))) if p == "headquartered_in"} == want


def test_only_the_rules_asked_for_are_compiled():
    """The statistical extractor asks for seven predicates' rules: the other rules' patterns (most of the time all of
    them take to compile) are not compiled in a process that runs it. A fresh interpreter: the rules are cached."""
    import subprocess
    import sys

    code = (
        "from semantic_rdf.pipeline import extract as e\n"
        "e.RuleExtractor(predicates={'died_in', 'spouse_of'})\n"
        "n = sum(p in ('died_in', 'spouse_of') for p, *_ in e._RULE_SPECS)\n"
        "print(e._rule.cache_info().currsize, n)\n"
        "e.RuleExtractor()\n"
        "print(e._rule.cache_info().currsize, len(e._RULE_SPECS))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == out[1] and 0 < int(out[0]) < 20
    assert out[2] == out[3]
    # the same rule objects, in the same order, whichever set asked first
    assert rules(frozenset({"died_in"})) == tuple(r for r in rules() if r.predicate == "died_in")


# ------------------------------------------------------------------ pronouns


def test_pronouns_resolve_to_the_most_recent_compatible_entity():
    out = RuleExtractor().extract(
        chunk_of(
            "Marie Curie was born in Warsaw. She moved to Paris in 1891. "
            "Siemens was founded by Werner von Siemens. It is headquartered in Munich. "
            "Rosalind Franklin was born in London. Her father was Ellis Franklin."
        )
    )
    got = facts(out)
    assert ("Marie Curie", "moved_to", "Paris") in got  # not Warsaw: a city is no "she"
    assert ("Siemens", "headquartered_in", "Munich") in got  # not the person: "it" wants a non-person
    assert ("Rosalind Franklin", "child_of", "Ellis Franklin") in got
    resolved = [t for t in out if t.predicate == "moved_to"][0]
    direct = [t for t in out if t.predicate == "born_in" and t.subject == "Marie Curie"][0]
    assert resolved.confidence < direct.confidence  # a resolved pronoun costs confidence


def test_unresolvable_pronoun_yields_nothing_and_is_counted():
    ex = RuleExtractor()
    assert ex.extract(chunk_of("She moved to Paris in 1891.")) == []
    assert ex.counts["unresolved_pronoun"] == 1


def test_a_count_or_a_class_of_named_things_is_no_entity():
    """Phrases from real Wikipedia text (Re-DocRED documents 0-399) that the rules stored as entities: a role
    whose class is a name's wants a capital; where a common noun can be the entity, not a count and not a class
    of named things standing for one of them ("the city", "the group"). The common nouns of the gold set stay."""
    ex = RuleExtractor()
    text = (
        "Beliën published a book about the political history of Belgium. "
        "Until 2011, the group consisted of eight voices. "
        "Bohumín consists of Old Bohumín and industrial New Bohumín, while several villages are administratively part of the town. "
        "The city is part of a network of large urban centres in north-east Punjab province. "
        "The Riksakten contained 12 paragraphs. "
        "The hippocampus is part of the limbic system. "
        "Marie Curie discovered polonium."
    )
    got = facts(ex.extract(chunk_of(text)))
    assert not [f for f in got if not any(ch.isupper() for ch in f[0] + f[2]) and f[0] != "hippocampus"], got
    for f in got:
        assert all(w not in (f[0] + " " + f[2]).split() for w in ("book", "voices", "villages", "city", "paragraphs")), f
    assert ("hippocampus", "part_of", "limbic system") in got
    assert ("Marie Curie", "discovered", "polonium") in got
    assert ex.counts["not_a_name"] >= 5


def test_a_name_after_lower_case_words_or_a_phrase_pointing_elsewhere_is_no_entity():
    """Phrases from real Wikipedia text (Re-DocRED) that the rules stored as entities. One word before a name (a
    class noun, an adjective) is cut off: the name is the entity ("the worldwide Catholic Church"). More words, or a
    name that runs on in lower case, and the phrase is none ("south end of Osaka Bay"); nor is a phrase pointing at
    what the text named elsewhere ("the following list", "old ones"), nor one that took in the adverb after it. A
    name's particle, a one-word brand and a name followed by a common noun ("Linux kernel", the gold set) stay."""
    ex = RuleExtractor()
    text = (
        "The Catholic Church in the Maldives is part of the worldwide Catholic Church. "
        "The Winnebago War preceded the larger Black Hawk War of 1832. "
        "Beatrix Ollenshaw discovered the comet Ollenshaw-Tarn. "
        "The south end of Osaka Bay is part of Seto Inland Sea National Park. "
        "Gujranwala forms part of the so-called Golden Triangle of industrial cities. "
        "The following list consists of items. "
        "The new chloroplast genes replaced old ones. "
        "The orchestra originally consisted of singers. "
        "The EDVAC is a form of von Neumann architecture. "
        "Apple developed iPhone. "
        "Linus Torvalds developed the Linux kernel."
    )
    got = facts(ex.extract(chunk_of(text)))
    words = {w for f in got for w in (f[0] + " " + f[2]).split()}
    assert not words & {"worldwide", "larger", "comet", "south", "so-called", "following", "old", "ones", "originally"}, got
    assert ("Winnebago War", "predecessor_to", "Black Hawk War of 1832") in got
    assert ("Beatrix Ollenshaw", "discovered", "Ollenshaw-Tarn") in got
    assert ("EDVAC", "subclass_of", "von Neumann architecture") in got
    assert ("Apple", "developed", "iPhone") in got
    assert ("Linus Torvalds", "developed", "Linux kernel") in got
    assert ex.counts["not_a_name"] >= 5


def test_a_people_is_no_person_group_or_work():
    """A nationality word fills no person's, group's or work's role (Re-DocRED 0-399, GUM); as a country it still
    gives citizenship."""
    got = facts(
        RuleExtractor().extract(
            chunk_of(
                "Her niece Yasmine Torjeman-Besson married French politician Éric Besson. "
                "Manon Balletti was the daughter of Italian actors performing in France. "
                "Jeanne Moreau is a French citizen."
            )
        )
    )
    assert not [f for f in got if {"French", "Italian"} & {f[0], f[2]}], got
    assert ("Jeanne Moreau", "country_of_citizenship", "France") in got


def test_a_name_read_as_a_place_is_no_one_in_the_same_sentence():
    """GUM's biography of Jeanne Moreau: the appositive "the daughter of" went to the nearest name, the birthplace."""
    ex = RuleExtractor()
    got = facts(ex.extract(chunk_of("Moreau was born in Paris, the daughter of Katherine Buckley, a dancer.")))
    assert got == {("Moreau", "born_in", "Paris")}
    assert ex.counts["place_as_person"] == 1


def test_a_listed_place_of_several_words_is_no_one():
    """Re-DocRED: "Born in New Jersey, the eldest son of …" gave `New Jersey child_of …`; one word may be a
    person's name as well as a city's (GUM: Valeska Paris)."""
    ex = RuleExtractor()
    got = facts(
        ex.extract(
            chunk_of(
                "Born in New Jersey, the eldest son of Augustine Prevost, he joined the British Army. "
                "Paris was born in Switzerland, the daughter of Albert Jaquier."
            )
        )
    )
    assert not [f for f in got if "New Jersey" in (f[0], f[2]) and f[1] in ("child_of", "parent_of")], got
    assert ("Paris", "born_in", "Switzerland") in got
    assert ex.counts["place_as_person"] >= 1


def test_saint_mount_and_fort_open_a_name():
    """ "St." is no initial: without it the name was "St" ("Chuck Berry born_in St")."""
    got = facts(
        RuleExtractor().extract(
            chunk_of(
                "Chuck Berry was born in St. Louis, Missouri. Maher graduated from St. Patrick's Academy in Brooklyn. Ann Smith lives in Ft. Worth."
            )
        )
    )
    assert ("Chuck Berry", "born_in", "St. Louis") in got
    assert ("Maher", "educated_at", "St. Patrick's Academy") in got
    assert ("Ann Smith", "resided_in", "Ft. Worth") in got
    assert not [f for f in got if "St" in (f[0], f[2]) or "Ft" in (f[0], f[2])]


def test_pronoun_resolution_carries_across_chunks_of_one_document_only():
    ex = RuleExtractor()
    text = "Alan Turing studied at Princeton University. Later he worked at the University of Manchester."
    cut = text.index("Later")
    c1 = Chunk("doc-a", 0, text[:cut], 0, cut)
    c2 = Chunk("doc-a", 1, text[cut:], cut, len(text))
    ex.extract(c1)
    assert ("Alan Turing", "worked_at", "University of Manchester") in facts(ex.extract(c2))
    other = Chunk("doc-b", 0, text[cut:], 0, len(text) - cut)
    assert ex.extract(other) == []  # another document does not see doc-a's people


# ------------------------------------------------------------------ spans


def test_every_triple_carries_its_chunk_and_sentence_span_in_document_offsets():
    sentences = ["Some preamble without facts.", "Paris is the capital of France.", "In 1933 Albert Einstein emigrated to the United States."]
    doc = Doc("doc-1", "mem:", "\n\n".join(["Header line here."] + sentences))
    start = doc.text.index("Some")
    c = Chunk(doc.id, 3, doc.text[start:], start, len(doc.text))
    out = RuleExtractor().extract(c)
    assert len(out) == 2
    for t in out:
        assert t.chunk is c
        assert doc.text[t.start : t.end] in sentences
        assert t.subject in doc.text[t.start : t.end] and t.object in doc.text[t.start : t.end]
    assert {doc.text[t.start : t.end] for t in out} == set(sentences[1:])


def test_negations_and_questions_assert_nothing(ex):
    assert ex.extract(chunk_of("Johann Sebastian Bach was not born in Leipzig.")) == []
    assert ex.extract(chunk_of("Pierre Curie never married Marie Skłodowska.")) == []
    assert ex.extract(chunk_of("Was Nikola Tesla born in Smiljan?")) == []


@pytest.mark.parametrize(
    "text, born",
    [
        ("Anna Weiss was born in Paris, France.", {("Anna Weiss", "Paris")}),
        ("Anna Weiss was born in Springfield, Ill.", {("Anna Weiss", "Springfield")}),
        ("Anna Weiss (born in Paris, France) is a painter.", {("Anna Weiss", "Paris")}),
        ("Born in Ulm, Albert Einstein spent his childhood in Munich.", {("Albert Einstein", "Ulm")}),
        ("Han Lei was born and raised in Hohhot, Inner Mongolia.", {("Han Lei", "Hohhot")}),
        ("He left. Born in Ulm, Albert Einstein studied.", {("Albert Einstein", "Ulm")}),
        ("Born in Vienna, Austria, Ulrich began his career in Graz.", {("Ulrich", "Vienna")}),
        ("Born in Prelate, Saskatchewan, he moved to Alberta.", set()),
        ("Born in Los Angeles, California, enlisted in the Navy.", set()),
        ("Born in Ulm, Albert Einstein, a physicist, moved to Munich.", {("Albert Einstein", "Ulm")}),
    ],
)
def test_a_place_and_its_region_after_born_in_are_never_read_as_who_was_born(ex, text, born):
    # the participle rule ("Born in Ulm, Albert Einstein …") had read "born in Paris, France" as France born in Paris,
    # and "Born in Prelate, Saskatchewan, he moved" as Saskatchewan born in Prelate
    assert {(t.subject, t.object) for t in ex.extract(chunk_of(text)) if t.predicate == "born_in"} == born


@pytest.mark.parametrize(
    "text, want",
    [
        # a death's place after its date, the age at it, or where in the town it was
        ("Knut Hamsun died at the age of 92 in Grimstad.", {("Knut Hamsun", "died_in", "Grimstad")}),
        ("Knut Hamsun died on 19 February 1952, at his home in Grimstad.", {("Knut Hamsun", "died_in", "Grimstad")}),
        ("Knut Hamsun died in February 1952 at the age of 92 in Grimstad.", {("Knut Hamsun", "died_in", "Grimstad")}),
        ("Knut Hamsun died, aged 92, in Grimstad.", {("Knut Hamsun", "died_in", "Grimstad")}),
        ("Marie Dupont died in 1934 at a sanatorium in Passy.", {("Marie Dupont", "died_in", "Passy")}),
        ("Paul Smith died in 1934 at the hands of the Nazis in Berlin.", set()),
        ("Ada Lovelace died of uterine cancer in 1852 at the age of 36 in Marylebone.", {("Ada Lovelace", "died_in", "Marylebone")}),
        ("William Brigden died of a heart attack on May 26, 1939 in Battle Creek.", {("William Brigden", "died_in", "Battle Creek")}),
        ("Paul Smith died of tuberculosis in the Warsaw Ghetto.", set()),
        # a life in the relative clause of the sentence's predicate noun, not of a noun joined to it
        ("Jan Olsen was an actor who died in Copenhagen in 1970.", {("Jan Olsen", "died_in", "Copenhagen")}),
        ("Jan Olsen was an actor who was born in Aarhus.", {("Jan Olsen", "born_in", "Aarhus")}),
        ("Jan Olsen was an actor who was born in 1920 in Aarhus.", {("Jan Olsen", "born_in", "Aarhus")}),
        ("Jan Olsen was the son of a baker who died in Copenhagen.", set()),
        ("Jan Olsen was a friend and colleague who died in Copenhagen.", set()),
        # a birth's date and a comma before its place; a spouse named with what they do
        ("Paul Smith was born on 3 May 1921, in Leeds.", {("Paul Smith", "born_in", "Leeds")}),
        ("Anna Berg is married to the actor Tom Hanks.", {("Anna Berg", "spouse_of", "Tom Hanks")}),
        ("Anna Berg was married to fellow wrestler Tom Hanks.", {("Anna Berg", "spouse_of", "Tom Hanks")}),
        ("Anna Berg is married to former actress Jane Doe.", {("Anna Berg", "spouse_of", "Jane Doe")}),
    ],
)
def test_a_life_told_with_more_words_between_its_ends(ex, text, want):
    # each was missed by the rules, and so by the default extractor, which reads births, deaths and spouses by them
    assert {f for f in facts(ex.extract(chunk_of(text))) if f[1] in ("born_in", "died_in", "spouse_of")} == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Mark Harmsworth is an American politician.", {("Mark Harmsworth", "United States")}),
        ("Ali Kuli Khan Khattak is a retired Pakistani general officer.", {("Ali Kuli Khan Khattak", "Pakistan")}),
        ("Patrick Stettner is an American film director and writer.", {("Patrick Stettner", "United States")}),
        ("Stanisław Tymiński (born January 27, 1948) is a Canadian businessman of Polish origin.", {("Stanisław Tymiński", "Canada")}),
        ('"Il Regalo" is a song by Italian singer Tiziano Ferro.', {("Tiziano Ferro", "Italy")}),
        ("It is a song by Australian recording artist and songwriter Kylie Minogue.", {("Kylie Minogue", "Australia")}),
        ("Emmy Noether was a German citizen.", {("Emmy Noether", "Germany")}),
        # what a nationality word describes that is no person, or what was made or done
        ("The Hub is an American computer network music ensemble formed in 1986.", set()),
        ("Won-yong is a Korean masculine given name.", set()),
        ("Radiohead is an English rock band.", set()),
        ("Olympic National Park is an American national park located in Washington.", set()),
        ("Tropic of Cancer is a 1970 American drama film directed by Joseph Strick.", set()),
        ("In 2008, the Japanese government acknowledged Pharr's work.", set()),
        ("Franck Piccard is a French former Alpine skier.", {("Franck Piccard", "France")}),  # not "Alpine"
        ("He is assistant manager in the Slovak giant ŠK Slovan Bratislava.", set()),
        ("He played for the Turkish side Gaziantepspor.", set()),
        ("Jespersen was a professor of English at the University of Copenhagen.", set()),
        ("He joined the Russian army under Tsar Aleksei I in 1661.", set()),
        # a prefix, a firm, a ship, a work or a language's teacher; a name after "of" (found by a helper's review)
        ("He was replaced by non-British manager Arsène Wenger.", set()),
        ("Microsoft is an American multinational technology corporation.", set()),
        ("Heineken is a Dutch brewer.", set()),
        ("It was sunk by the British destroyer HMS Cobra.", set()),
        ("It lies in the French department Dordogne.", set()),
        ("Big is an American film starring Tom Hanks.", set()),
        ("John Smith is an English teacher.", set()),
        ("They hired French horn player Dennis Brain.", set()),
        ("Rex is a German shepherd.", set()),
        ("The son of John Smith is an American actor.", set()),
        ("Jane Doe is an American film and television actress.", {("Jane Doe", "United States")}),
        ("Italian singer Tiziano Ferro released a song.", {("Tiziano Ferro", "Italy")}),
        # and a second reading of the review
        ("Lockheed Martin is an American defense contractor.", set()),
        ("Porsche is a German sports car maker.", set()),
        ("They hired American history teacher John Smith.", set()),
        ("He drove for the Italian constructor Ferrari.", set()),
        ("Frida Kahlo was a Mexican painter known for her self-portraits.", {("Frida Kahlo", "Mexico")}),
        ("Roger Ebert was an American film critic.", {("Roger Ebert", "United States")}),
        ("It honours the Polish pianist, composer and teacher Fryderyk Chopin.", {("Fryderyk Chopin", "Poland")}),
        ("During the Russian invasion, president Volodymyr Zelenskyy stayed in Kyiv.", set()),
        ("He signed for the Dutch club, where manager John Smith coached him.", set()),
    ],
)
def test_a_nationality_word_for_what_a_person_is_gives_a_citizenship(ex, text, want):
    # Re-DocRED 0-399 by its gold: such readings of what the classifiers missed ("Mark Harmsworth is an American
    # politician" scored 0.48) are mostly right; a park, a band or a film "directed by" someone were not (extraction.md)
    assert {(t.subject, t.object) for t in ex.extract(chunk_of(text)) if t.predicate == "country_of_citizenship"} == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Mehmet Çetingöz (born May 12, 1991 in Şanlıurfa, Turkey) is a basketball player.", {("born_in", "Mehmet Çetingöz", "Şanlıurfa")}),
        ("Christopher Franke (born 6 April 1953, Berlin) is a composer.", {("born_in", "Christopher Franke", "Berlin")}),
        ("Zevs (born Christophe Aguirre Schwarz on 17 November 1977 in Saverne, France) is an artist.", {("born_in", "Zevs", "Saverne")}),
        (
            "Eva Bosáková-Hlaváčková, née Věchtová (18 December 1931 in Mladá Boleslav – 10 November 1991 in Prague) was a gymnast.",
            {("born_in", "Eva Bosáková-Hlaváčková", "Mladá Boleslav"), ("died_in", "Eva Bosáková-Hlaváčková", "Prague")},
        ),
        (
            "Georg Jochmann (11 October 1874, in Liegnitz – 6 January 1915, in Berlin) was an internist.",
            {("born_in", "Georg Jochmann", "Liegnitz"), ("died_in", "Georg Jochmann", "Berlin")},
        ),
        (
            "Alberto Valenzuela Llanos (San Fernando, Chile, August 29, 1869 – Santiago, Chile, July 23, 1925) was a painter.",
            {("born_in", "Alberto Valenzuela Llanos", "San Fernando"), ("died_in", "Alberto Valenzuela Llanos", "Santiago")},
        ),
        ("Louis Chollet (5 April 1815 in Paris - 21 March 1851, Paris) was an organist.", {("born_in", "Louis Chollet", "Paris")}),
        (
            "Anne-Marguerite du Noyer (Nîmes, 2 June 1663 — Voorburg, May 1719) was a journalist.",
            {("born_in", "Anne-Marguerite du Noyer", "Nîmes"), ("died_in", "Anne-Marguerite du Noyer", "Voorburg")},
        ),
        ("Eva Berg (18 December 1931 – 10 November 1991 in Prague) was a gymnast.", {("died_in", "Eva Berg", "Prague")}),
        ("John Henry Dearle or J. H. Dearle (1859 in London – 15 January 1932) was a designer.", {("born_in", "J. H. Dearle", "London")}),
        (
            "John Smith (born 1950 in London; died 2001 in Paris) was a poet.",
            {("born_in", "John Smith", "London"), ("died_in", "John Smith", "Paris")},
        ),
        ("A native of Les Saisies, Piccard won four races.", {("born_in", "Piccard", "Les Saisies")}),
        # a birth name is no place; the death's place after a birth's comma is not the birth's; a death alone is no birth
        ("Nikos Aliagas (/ Níkos Aliágas; born Νικόλαος Αλιάγας / Nikólaos Aliágas on 13 May 1969) is a journalist.", set()),
        (
            "Alecu Russo (born in March 17, 1819, near Chişinău, died on February 5, 1859, in Iaşi), was a writer.",
            {("died_in", "Alecu Russo", "Iaşi")},
        ),
        ("Anna Berg (18 December 1931 – 10 November 1991 in Prague) was a gymnast.", {("died_in", "Anna Berg", "Prague")}),
        ("Anna Berg (born May 12, 1991) is a painter who lives in Oslo.", set()),
        # what a helper's review found: a date and a place after a name that is no life, a term of office, an event within
        # one year, another's death, a name before the dates, an era read as a name, a father's birth
        ("The world record is held by Usain Bolt (16 August 2009, Berlin).", set()),
        ("Bob Beamon (18 October 1968, Mexico City) set the record.", set()),
        ("Aleksandr Borovkov (Александр Боровков, 6 March 1931, Moscow) is a mathematician.", set()),
        ("In an interview with Peter Brown (BBC, 12 May 2010, London) he spoke.", set()),
        ("Peter Brown (whose father died in Leeds) was a painter.", set()),
        ("Peter Brown (born 1950 in Leeds; his brother died in York) was a painter.", {("born_in", "Peter Brown", "Leeds")}),
        ("Douglas Haig (December 1915 – November 1918, France) commanded the army.", set()),
        ("John Smith (12 May 1990 – 3 June 1995, Labour) was the MP.", set()),
        ("John Smith (Leeds North, May 1990 – June 1995) was the MP.", set()),
        ("Woodstock (August 15, 1969 – August 18, 1969 in Bethel) was a festival.", set()),
        ("Pelé (Edson Arantes do Nascimento, 23 October 1940 – 29 December 2022) was a footballer.", set()),
        ("Cicero (3 January 106 BC, Arpinum – 7 December 43 BC, Formia) was a statesman.", set()),
        ("A native of Leeds, Peter Brown's father was a miner.", set()),
        # and its second reading: a span of fewer than ten years is no life; an era and a birth name before the birth
        ("John Smith (12 May 1990, Westminster – 3 June 1995) was Home Secretary.", set()),
        ("Didier Drogba (Marseille, May 2003 – Chelsea) was transferred.", set()),
        ("Cicero (born 3 January 106 BC in Arpinum) was a statesman.", {("born_in", "Cicero", "Arpinum")}),
        ("Elton John (born Reginald Kenneth Dwight; 25 March 1947 in Pinner) is a singer.", {("born_in", "Elton John", "Pinner")}),
        ("John Smith (born John Brown, 12 May 1950 in Leeds) is a singer.", {("born_in", "John Smith", "Leeds")}),
    ],
)
def test_a_life_in_parentheses_gives_the_birth_and_death_places(ex, text, want):
    # Re-DocRED 0-399 out of fold: the classifiers scored such births 0.3-0.5 ("Luan Bo (born April 16, 1965 in Harbin,
    # Heilongjiang)"); read by rule, 16 births and 5 deaths more, all right (extraction.md, step 8)
    got = {(t.predicate, t.subject, t.object) for t in ex.extract(chunk_of(text)) if t.predicate in ("born_in", "died_in")}
    assert got == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Rip Torn and his wife Mona visited Paris.", {("Rip Torn", "Mona")}),
        (
            "Philippe-Louis du Han (1678 – 1733) and his wife Catherine Roquefeuil had a daughter.",
            {("Philippe-Louis du Han", "Catherine Roquefeuil")},
        ),
        ("John Smith and his wife, Mary Smith, moved to Oslo.", {("John Smith", "Mary Smith")}),
        ("In 1750 Manon married the architect Jacques-François Blondel.", {("Manon", "Jacques-François Blondel")}),
        ("Her niece Yasmine Torjeman-Besson married French politician Éric Besson.", {("Yasmine Torjeman-Besson", "Éric Besson")}),
        # "his" is the sentence's subject's, not the club's; "married in Paris" names no spouse
        ("He played for Arsenal and his wife Jane Doe worked at a bank.", set()),
        ("Anna Berg married in Paris in 1950.", set()),
        # a second review: a clause after the spouse, "off", a possessive, a name after "of"
        ("Peter Brown married Anna Berg while director John Smith filmed the ceremony.", {("Peter Brown", "Anna Berg")}),
        ("John Smith married off his daughter Mary Smith to Peter Brown.", set()),
        ("Anna Berg married the composer Karl Weber's brother Hans Weber.", set()),
        ("The daughter of John Smith married the architect Peter Brown.", set()),
    ],
)
def test_a_wife_or_a_husband_named_beside_a_person(ex, text, want):
    assert {(t.subject, t.object) for t in ex.extract(chunk_of(text)) if t.predicate == "spouse_of"} == want


def test_a_school_is_named_so():
    """extract.school_name, which step 8 of the statistical extractor asks of a "studied at" the rules read."""
    import doctest

    from semantic_rdf.pipeline import extract

    ran = doctest.testmod(extract)
    assert ran.attempted >= 1 and not ran.failed
    assert extract.school_name("Conservatoire de Paris") and not extract.school_name("Bolshoi Ballet")


def test_a_nationality_or_a_listed_place_is_no_antecedent_of_he_or_she(ex):
    # issue 17's first example: the rules stored "Norwegian died_in Kristiania"
    text = "Henrik Angell was a Norwegian military officer. He died in Kristiania."
    assert {(t.subject, t.predicate, t.object) for t in ex.extract(chunk_of(text))} == {
        ("Henrik Angell", "died_in", "Kristiania"),
        ("Henrik Angell", "country_of_citizenship", "Norway"),
    }
    text = "Paul Desmarais Jr. is a Canadian businessman. He is the eldest son of Paul Desmarais Sr. and Jacqueline Desmarais."
    assert {t.subject for t in ex.extract(chunk_of(text))} == {"Paul Desmarais Jr"}
    assert ex.extract(chunk_of("Ontario was his home. He studied at Lakefield College School.")) == []


@pytest.mark.parametrize(
    "text, want",
    [
        # the nearest name before "he" is a team, a place, another person named in passing: the document's
        # subject is meant (these were SK Ull and Hu Shih before)
        (
            "Henrik Angell was a Norwegian military officer. He played for SK Ull. In 1921 Angell visited Montenegro. He died in Kristiania.",
            # his surname, the nearest name of him, as written there
            {("Angell", "died_in", "Kristiania"), ("Henrik Angell", "country_of_citizenship", "Norway")},
        ),
        (
            "Yuen Ren Chao was a Chinese-American linguist. He met Hu Shih at Cornell University. Later he taught at Harvard University.",
            {("Yuen Ren Chao", "worked_at", "Harvard University")},
        ),
        # no one the document is about and no known person: unresolved (it was "La Florida spouse_of …")
        ("The museum was opened in La Florida. He married Beatrice Dugand in 1950.", set()),
        # a name its own sentence reads as a person
        (
            "In 1950 Marcel Roche moved to La Florida, where he married Beatrice Dugand.",
            {("Marcel Roche", "moved_to", "La Florida"), ("Marcel Roche", "spouse_of", "Beatrice Dugand")},
        ),
    ],
)
def test_he_or_she_stands_for_a_known_person_or_the_person_the_document_opens_with(text, want):
    assert facts(RuleExtractor().extract(chunk_of(text))) == want


def test_a_sentence_opening_with_he_or_she_is_about_the_person_the_last_one_opened_with():
    """Three people in one file: every "He"/"She" below went to the document's first person, Desmarais
    (Ogidi, Ibadan, Warsaw, a marriage to Pierre Curie), and Marie Curie's death to Pierre Curie. Now a
    sentence that opens with he/she is about the name the sentence before opened with, or that one's."""
    text = (
        "Paul Desmarais Jr. is a Canadian businessman. Desmarais was born in Sudbury, Ontario. He studied at McGill University.\n\n"
        "Chinua Achebe was a Nigerian novelist. He was born in Ogidi, Nigeria. He studied at the University of Ibadan.\n\n"
        "Marie Curie was a Polish physicist. She was born in Warsaw. She was married to Pierre Curie. She died in Passy, France.\n"
    )
    assert facts(RuleExtractor().extract(chunk_of(text))) == {
        ("Desmarais", "born_in", "Sudbury"),
        ("Desmarais", "studied_at", "McGill University"),
        ("Chinua Achebe", "born_in", "Ogidi"),
        ("Chinua Achebe", "studied_at", "University of Ibadan"),
        ("Marie Curie", "born_in", "Warsaw"),
        ("Marie Curie", "spouse_of", "Pierre Curie"),
        ("Marie Curie", "died_in", "Passy"),
        ("Chinua Achebe", "country_of_citizenship", "Nigeria"),
        ("Marie Curie", "country_of_citizenship", "Poland"),
    }
    # another name of that sentence that can be a person makes the opener no surer than it
    text = "The summit was held in Berlin. Barack Obama met Angela Merkel there. She was born in Hamburg."
    assert facts(RuleExtractor().extract(chunk_of(text))) == set()


def test_a_name_that_ends_with_an_initialism_keeps_its_full_stop():
    # "U.S" and "U.S." were two entities (the fold keeps full stops); the statistical extractor writes "U.S."
    got = facts(RuleExtractor().extract(chunk_of("Anna Weiss moved to the U.S. in 1990. Tom Becker moved to the U.S.")))
    assert got == {("Anna Weiss", "moved_to", "U.S."), ("Tom Becker", "moved_to", "U.S.")}
    assert facts(RuleExtractor().extract(chunk_of("Anna Weiss works at Acme Inc. in Boston."))) == {("Anna Weiss", "worked_at", "Acme Inc")}


def test_a_name_keeps_its_middle_initials():
    # the name pattern ended at a middle initial's full stop: "Charles J" was born in Bayport
    text = "Charles J. Fillmore was born in Bayport. John F. X. Smith studied at Harvard University."
    assert facts(RuleExtractor().extract(chunk_of(text))) == {
        ("Charles J. Fillmore", "born_in", "Bayport"),
        ("John F. X. Smith", "studied_at", "Harvard University"),
    }
    # but a letter ending a sentence the splitter kept whole is no middle initial of the next sentence's name
    text = "Ada Lovelace wrote Note G. Charles Babbage designed the Analytical Engine. He played in Group A. The team won."
    assert facts(RuleExtractor().extract(chunk_of(text))) == {
        ("Ada Lovelace", "wrote", "Note G"),
        ("Charles Babbage", "designed", "Analytical Engine"),
    }


def test_the_person_a_document_opens_with_is_read_from_its_first_chunk_only():
    ex = RuleExtractor()
    first = "Henrik Angell was a Norwegian military officer. "
    rest = "He played for SK Ull. He died in Kristiania."
    ex.extract(Chunk("doc-a", 0, first, 0, len(first)))
    assert facts(ex.extract(Chunk("doc-a", 1, rest, len(first), len(first) + len(rest)))) == {("Henrik Angell", "died_in", "Kristiania")}
    assert ex.extract(Chunk("doc-b", 1, rest, 500, 500 + len(rest))) == []  # doc-b's first chunk was never read


def test_relation_free_sentences_give_nothing(ex):
    text = (
        "The weather in the valley was unusually mild that spring. Paris and London are both large cities. "
        "Critics have compared Kafka to Dostoevsky. The museum is closed on Mondays."
    )
    assert ex.extract(chunk_of(text)) == []


# ------------------------------------------------------------------ literals and valid time


def test_literals_are_typed():
    lits = literals("On 7 November 1867 she was born; 1,250 people and 3.5 percent; July 4, 1776; 2024-02-29.")
    by = {(x.lexical, x.datatype) for x in lits}
    assert ("1867-11-07", XSD + "date") in by
    assert ("1776-07-04", XSD + "date") in by
    assert ("2024-02-29", XSD + "date") in by
    assert ("1250", XSD + "integer") in by
    assert ("3.5", XSD + "decimal") in by
    text = "In 1903 and 42 more."
    for x in literals(text):
        assert text[x.start : x.end] == x.text
    assert {(x.lexical, x.datatype) for x in literals(text)} == {("1903", XSD + "gYear"), ("42", XSD + "integer")}
    assert not any(x.lexical == "2023-02-29" for x in literals("2023-02-29"))  # not a date


def utc(y, m=1, d=1):
    return datetime(y, m, d, tzinfo=timezone.utc)


def test_dates_become_valid_time():
    assert sentence_validity("She worked at CERN from 1920 to 1933.").start == utc(1920)
    assert sentence_validity("She worked at CERN from 1920 to 1933.").until == utc(1934)
    v = sentence_validity("He has lived in Oslo since 1990.")
    assert v.start == utc(1990) and v.until is None
    assert sentence_validity("Born on 7 November 1867 in Warsaw.").start == utc(1867, 11, 7)
    assert sentence_validity("In 1903 and in 1911 she won prizes.") is None  # two dates: ambiguous
    assert sentence_validity("from 1950 to 1920") is None  # backwards: no interval
    assert sentence_validity("No dates here.") is None
    out = RuleExtractor().extract(chunk_of("Marie Curie was awarded the Nobel Prize in Chemistry in 1911."))
    assert out[0].valid.start == utc(1911) and out[0].valid.until is None


# ------------------------------------------------------------------ rules


def test_rules_reach_at_least_35_predicates_and_have_their_own_confidence():
    rs = rules()
    preds = {r.predicate for r in rs}
    assert preds <= vocab.predicate_names()
    assert len(preds) >= 35
    assert len({r.score for r in rs}) >= 4
    assert all(0 < r.score <= 1 for r in rs)


def test_confidence_differs_by_rule(ex):
    strong = ex.extract(chunk_of("Alexander Graham Bell invented the telephone."))[0]
    loose = ex.extract(chunk_of("Airbus builds the A380 in Toulouse."))[0]
    assert strong.predicate == "invented" and loose.predicate == "manufactured"
    assert strong.confidence > loose.confidence


def test_lists_give_one_triple_per_member(ex):
    got = facts(ex.extract(chunk_of("The transistor was co-invented by John Bardeen, Walter Brattain and William Shockley.")))
    assert got == {(n, "co_invented", "transistor") for n in ("John Bardeen", "Walter Brattain", "William Shockley")}


def test_extraction_is_deterministic():
    text = GOLD.read_text(encoding="utf-8")
    body = " ".join(json.loads(line)["text"] for line in text.splitlines()[:60])
    a = RuleExtractor().extract(chunk_of(body))
    b = RuleExtractor().extract(chunk_of(body))
    assert [(t.subject, t.predicate, t.object, t.score, t.start) for t in a] == [(t.subject, t.predicate, t.object, t.score, t.start) for t in b]


def test_bad_input_is_refused(ex):
    with pytest.raises(InvalidInput):
        ex.extract("plain text")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        RuleExtractor(floor=1.5)
    with pytest.raises(InvalidInput):
        RuleExtractor(floor=True)  # type: ignore[arg-type]


# ------------------------------------------------------------------ screening: two knobs


def test_screen_reports_schema_and_floor_separately():
    c = chunk_of("x")
    ts = [
        Triple("A", "born_in", "B", chunk=c, score=0.9),
        Triple("A", "likes", "B", chunk=c, score=0.99),
        Triple("A", "died_in", "B", chunk=c, score=0.3),
        Triple("A", "won", "C", chunk=c),
    ]
    sc = screen(ts, floor=0.5)
    assert [t.predicate for t in sc.kept] == ["born_in", "won"]  # no score = full confidence
    assert [t.predicate for t in sc.out_of_vocabulary] == ["likes"]
    assert [t.predicate for t in sc.below_floor] == ["died_in"]
    assert sc.counts() == {"kept": 2, "out_of_vocabulary": 1, "below_floor": 1}
    # an out-of-vocabulary triple is never also counted below the floor, even with a tiny score
    sc2 = screen([Triple("A", "likes", "B", chunk=c, score=0.01)], floor=0.5)
    assert len(sc2.out_of_vocabulary) == 1 and not sc2.below_floor
    assert len(screen(ts).kept) == 3  # no floor: only the schema knob
    with pytest.raises(InvalidInput):
        screen(ts, floor=-0.1)


def test_extractor_floor_drops_and_counts():
    text = "Airbus builds the A380 in Toulouse. Alexander Graham Bell invented the telephone."
    ex = RuleExtractor(floor=0.8)
    got = ex.extract(chunk_of(text))
    assert [t.predicate for t in got] == ["invented"]
    assert ex.counts["below_floor"] == 1 and ex.counts["out_of_vocabulary"] == 0


# ------------------------------------------------------------------ quality on the hand-labelled set


def test_gold_set_shape_and_quality():
    items = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(items) >= 100
    gold_preds = {g[1] for it in items for g in it["triples"]}
    assert gold_preds <= vocab.predicate_names() and len(gold_preds) >= 35
    assert sum(not it["triples"] for it in items) >= 10
    assert 0.2 <= sum(it["split"] == "heldout" for it in items) / len(items) <= 0.3
    tp = fp = fn = 0
    reached = set()
    for it in items:
        gold = {(fold(s), p, fold(o)) for s, p, o in it["triples"]}
        got = {(fold(t.subject), t.predicate, fold(t.object)) for t in RuleExtractor().extract(chunk_of(it["text"], it["id"]))}
        sym = {"collaborated_with", "worked_with", "partnered_with", "spouse_of"}
        got = {(o, p, s) if p in sym and (o, p, s) in gold else (s, p, o) for s, p, o in got}
        tp += len(got & gold)
        fp += len(got - gold)
        fn += len(gold - got)
        reached |= {p for _, p, _ in got & gold}
    assert tp / (tp + fp) >= 0.85
    assert tp / (tp + fn) >= 0.6
    assert len(reached) >= 35


# ------------------------------------------------------------------ fuzz

_WORDS = [
    "Marie Curie",
    "was",
    "born",
    "in",
    "Paris",
    "She",
    "he",
    "it",
    "the",
    "capital",
    "of",
    "France",
    ",",
    ".",
    "?",
    "and",
    "Ørsted",
    "founded",
    "by",
    "\ue000",
    "\ue0011\ue001",
    "J.",
    "1903",
    "from",
    "to",
    "1920",
    "married",
    "Montréal",
    "'s",
    "wife",
    "not",
    "\n\n",
    "İstanbul",
    "ß",
    "co-invented",
    "with",
    "A",
    "On",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=400), st.lists(st.sampled_from(_WORDS), max_size=80).map(" ".join)), st.integers(min_value=0, max_value=50))
def test_fuzz_never_crashes_and_spans_stay_inside_the_chunk(text, offset):
    doc_text = "x" * offset + text
    c = Chunk("fz", 0, text, offset, offset + len(text))
    ex = RuleExtractor()
    for t in ex.extract(c):
        assert c.start <= t.start <= t.end <= c.end
        sent = doc_text[t.start : t.end]
        assert (t.start - offset, t.end - offset) in sentence_spans(text)
        assert sent.strip() == sent and sent
        assert t.predicate in vocab.predicate_names()
        assert t.subject.strip() and t.object.strip()
        assert 0 < t.confidence <= 1


# ------------------------------------------------------------------ frozen output; fast paths equal the reference

FROZEN = Path(__file__).parent / "data" / "extraction_gold_frozen.jsonl"


def _encoded(triples):
    return [
        [
            t.subject,
            t.predicate,
            t.object,
            t.score,
            t.start,
            t.end,
            None
            if t.valid is None
            else [None if t.valid.start is None else t.valid.start.isoformat(), None if t.valid.until is None else t.valid.until.isoformat()],
        ]
        for t in triples
    ]


def test_output_on_the_gold_sentences_is_frozen():
    """Every triple (with score, span and valid time) and every entity type, exactly as the extractor gave
    them before it was made faster. A deliberate change to the rules regenerates the file; nothing else may."""
    from semantic_rdf.pipeline.split import Sentences

    frozen = [json.loads(line) for line in FROZEN.read_text(encoding="utf-8").splitlines()]
    items = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [f["id"] for f in frozen[:-1]] == [it["id"] for it in items]
    for it, want in zip(items, frozen):
        ex = RuleExtractor()
        got = ex.extract(chunk_of(it["text"], it["id"]))
        assert _encoded(got) == want["triples"], it["id"]
        assert dict(sorted(ex.entity_types.items())) == want["types"], it["id"]
    body = frozen[-1]  # all of them as one document in 600-character chunks: pronouns across chunks
    ex = RuleExtractor()
    text = " ".join(it["text"] for it in items)
    got = [t for c in Sentences(size=600).split(Doc("gold-body", "x", text)) for t in ex.extract(c)]
    assert _encoded(got) == body["triples"]
    assert dict(sorted(ex.entity_types.items())) == body["types"]
    assert dict(sorted(ex.counts.items())) == body["counts"]


def _reference_extractor(**kw) -> RuleExtractor:
    """The extractor with every shortcut off: the original name pattern, every triggered rule tried with
    finditer over the whole sentence (no prefilter on names or pronouns, no start offsets)."""
    import dataclasses

    from semantic_rdf.pipeline import extract as ext

    ex = RuleExtractor(**kw)
    if ex._mention_rx is ext._NAME_FAST_RX:
        ex._mention_rx = ext._NAME_RX
    ex.rules = tuple(dataclasses.replace(r, min_names=0, min_agents=0, opens_with_name=False, opens_with_agent=False) for r in ex.rules)
    return ex


_SOUP = _WORDS + [
    "Ada Lovelace",
    "wrote",
    "written",
    "was written by",
    "Note G",
    "is a",
    "city",
    "joined",
    "the Club",
    "His",
    "Her",
    "their",
    "They",
    "its",
    "composer",
    "fashion house",
    "Chanel",
    "co-founded",
    "studied at",
    "University of Vienna",
    "who",
    "(born 1815)",
    "in 1843",
    "Prize",
    "Nobel Prize in Physics",
    "for",
    "of",
    "de",
    "van",
    "Jean-Paul",
    "O'Brien",
    "Smith's",
    "’s",
    "never",
    "nothing",
    "another",
    "—",
    "\u00a0",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_SOUP), max_size=60).map(" ".join), st.booleans())
def test_fast_paths_give_exactly_what_the_reference_gives(text, gazetteer):
    kw = {"gazetteer": {"note g": "Work", "Ørsted": "Organization"}} if gazetteer else {}
    fast, ref = RuleExtractor(**kw), _reference_extractor(**kw)
    for i, part in enumerate((text, text[::-1], text.upper(), text.lower())):
        c = chunk_of(part, "soup", index=i)
        assert _encoded(fast.extract(c)) == _encoded(ref.extract(c))
    assert fast.entity_types == ref.entity_types and fast.counts == ref.counts


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=200),
        st.lists(
            st.sampled_from(
                _SOUP + ["J.", "R.", "U.S.", "A", "I", "OK", "The", "Then", "Thence", "Andrew", "And", "St.", "Mt.", "Ft.", "St", "louis"]
            ),
            max_size=40,
        ).map(lambda ws: "".join(w + " " for w in ws)),
    )
)
def test_fast_name_pattern_finds_exactly_the_names_of_the_original(text):
    from semantic_rdf.pipeline import extract as ext

    assert [m.span() for m in ext._NAME_FAST_RX.finditer(text)] == [m.span() for m in ext._NAME_RX.finditer(text)]


def test_rule_requirements_are_read_from_the_patterns():
    by_id = {r.id.split("-", 1)[0]: r for r in rules()}
    born = by_id["r000"]  # «s:agent» … born … «o:name»
    assert (born.min_names, born.min_agents, born.opens_with_agent) == (1, 1, True)
    co = by_id["r058"]  # the s2 list sits in an optional group: it requires nothing
    assert "s2" in co.source and (co.min_names, co.min_agents) == (0, 1)
    assert by_id["r136"].opens_with_name and not by_id["r136"].opens_with_agent


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "he",
                "He",
                "she",
                "It",
                "its",
                "they",
                "Their",
                "his",
                "her",
                "hers",
                "item",
                "the",
                "\ue000",
                "\ue0001\ue001",
                "x",
                "_",
                "1",
                "'",
                "-",
                "shed",
                "Ith",
                "thee",
                "ß",
                " ",
                ",",
            ]
        ),
        max_size=30,
    ).map("".join)
)
def test_fast_pronoun_pattern_starts_where_the_plain_one_does(text):
    from semantic_rdf.pipeline import extract as ext

    assert [m.start() for m in ext._PRON_AT.finditer(text)] == [m.start() for m in ext._PRON_ANY.finditer(text)]
