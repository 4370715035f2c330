"""A document's entities, grown one sentence at a time: one entity per referent (the same folded name, a
person's surname or partial name, a demonym's country, an other name given by "known as" or "née"), the
pronouns and definite nominals resolved to a salient antecedent, and the topic read into a sentence unnamed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.pipeline.statistical.definitions import NOMINALS, definition
from semantic_rdf.pipeline.statistical.mentions import ENTITY_TYPES, SentMention
from semantic_rdf.pipeline.statistical.names import (
    KIN_GROUPS,
    before_known_as,
    clean_name,
    fold,
    initials_and_surname,
    name_forms,
    name_key,
    name_read,
    not_a_name,
    other_script,
    role_split,
    span_text,
    without_opening,
    without_postnominals,
    without_title,
    without_weekday,
)
from semantic_rdf.pipeline.statistical.text import Token, web_address

__all__ = ["Entity", "DocState"]


_PRON_PER = {"he": "subj", "she": "subj", "him": "obj", "his": "poss", "her": "poss", "hers": "poss"}
_GENDER = {"he": "m", "him": "m", "his": "m", "she": "f", "her": "f", "hers": "f"}
_PRON_IT = {"it": "subj", "its": "poss"}
_RESOLVABLE = frozenset(_PRON_PER) | frozenset(_PRON_IT) | frozenset(NOMINALS)


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
        renamed = {k: (a, b, typ) for a, b, typ, gold in spans if gold is None and (k := before_known_as(tokens, a)) >= 0}
        renaming = {a: k for k, (a, _, _) in renamed.items()}
        # each span as read (`role_split`), with the span as tagged for the name it holds, its last part (a nationality
        # before a role is no other name of anything)
        parts: list[tuple[tuple[int, int, str, int | None], tuple[int, int]]] = []
        for span in spans:
            pieces = role_split(tokens, span)
            parts.extend((part, (span[0], span[1]) if n == len(pieces) - 1 else (-1, -1)) for n, part in enumerate(pieces))
        last = [fold(tokens[b - 1].text) for (a, b, typ, _), _ in parts if typ == "PER"]
        kin = {w for w in last if last.count(w) > 1}  # surnames two names of this sentence share
        for (a, b, typ, gold), (a0, b0) in parts:
            if typ not in ENTITY_TYPES:
                continue
            if gold is None:
                # a name ends before a web or e-mail address the tagger ran it into ("Daniel Smith daniel.smith2@…")
                b = next((k for k in range(a, b) if web_address(tokens[k].text)), b)
                a = without_opening(tokens, a, b, typ)
                if b == a:
                    continue
                # a name written in Latin letters keeps no word of another script the tagger ran into it ("一葉
                # Higuchi Ichiyō", from "Ichiyō Higuchi (樋口 一葉 Higuchi Ichiyō, …)")
                while b - a > 1 and other_script(tokens[a].text):
                    a += 1
                while b - a > 1 and other_script(tokens[b - 1].text):
                    b -= 1
                if typ != "PER" and initials_and_surname(tokens, a, b):
                    typ = "PER"  # "N S Andres", "J. K. Rowling": no place or firm is written so
                if typ == "LOC" and b - a == 1 and (person := self._surname_of(tokens, a)) is not None:
                    # "Holt" after "Brock Holt": the person again, though "Holt" is a town's name too; joined to that person
                    # whatever other names hold the word ("Holt Collier")
                    typ = "PER"
                    self.by_key[fold(clean_name(tokens[a].text) or tokens[a].text)] = person
                if typ == "PER":
                    a = without_title(tokens, a, b)
                    b = without_weekday(tokens, a, without_postnominals(tokens, a, b))
                    if b - a == 1 and b < len(tokens) and tokens[b].text in KIN_GROUPS:
                        continue  # "the Bernoulli family": a family, not the person of that surname
            surface = span_text(tokens, a, b)
            if not any(c.isupper() for c in surface):
                continue  # no lower-case common nouns as entities
            if gold is None and not_a_name(tokens, a, b, surface):
                continue
            if gold is None:
                self._birth_name(tokens, a, surface, out)
                if a0 in renaming:
                    self._known_as(renaming[a0], surface, out)
                if b0 - 1 in renamed:
                    self._known_first(surface, name_read(tokens, *renamed[b0 - 1]))
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
            elif w in NOMINALS and k > 0 and tokens[k - 1].text.lower() == "the":
                got = self._resolve_nominal(NOMINALS[w], k, named, prev)
            if got is not None and (k, k + 1) not in taken:
                i, conf = got
                if conf >= _RESOLVE_FLOOR:
                    if w in _GENDER and conf >= 0.85 and not self.entities[i].gender:
                        self.entities[i].gender = _GENDER[w]
                    a = k - 1 if w in NOMINALS else k
                    out.append(
                        SentMention(a, k + 1, i, "nominal" if w in NOMINALS else "pron", conf, span_text(tokens, a, k + 1), tokens[a].start, tok.end)
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
        if e.said or name_key(m.surface) != fold(e.name):
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
        key = name_key(surface)
        if person is not None and key not in self.by_key:
            self.by_key[key] = person

    def _known_as(self, k: int, surface: str, before: list[SentMention]) -> None:
        """A name given as another name of what was named just before ("The Winnebago War, also known as the
        Winnebago Uprising", "Kitigan Zibi (also known as River Desert)", "Jenna Nicole Mourey (born …), better
        known by her pseudonym Jenna Marbles") is that entity's other name, not another entity: it joins the
        named mention that ends at token `k`, where the phrase begins (`before_known_as`)."""
        prev = next((m for m in reversed(before) if m.kind == "named" and m.b - 1 == k), None)
        key = name_key(surface)
        if prev is not None and key not in self.by_key:
            self.by_key[key] = prev.entity
            words = key.split()
            if self.entities[prev.entity].type == "PER" and len(words) > 1 and len(words[-1]) > 2:
                self.by_key.setdefault(words[-1], prev.entity)  # the other name's surname alone, later: the same person

    def _known_first(self, surface: str, other: str) -> None:
        """A name renamed by an other name the document gave before (a page titled "Jenna Marbles" opening with
        "Jenna Nicole Mourey (…), better known by her pseudonym Jenna Marbles"): the entity of that other name."""
        key, okey = name_key(surface), name_key(other)
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
