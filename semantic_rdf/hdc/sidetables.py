"""Side tables beside the RDF store: packed HDC vectors, document path memories, Hebbian weights.

One SQLite file. The RDF store is the source of truth:
- fact rows (assertion id -> subject / predicate / object term keys) and term vectors are
  derived data: written (packed, 1,250 bytes) when a fact is written, never recomputed per
  query, and `reconcile()` brings them back in line with the store after a crash (missing rows
  encoded, orphans removed, everything re-encoded if the encoder changed);
- Hebbian weights and the turn counter cannot be recomputed, so every change is one transaction.

`PRAGMA secure_delete = ON` overwrites deleted content; `vacuum()` also drops free pages, so an
erased entity's name and vector do not survive in the file.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from semantic_rdf.core.errors import InvalidInput, StoreInUse
from semantic_rdf.core.identity import fold
from semantic_rdf.hdc.gate import Config, FactIndex, entity_key, predicate_key
from semantic_rdf.hdc.vectors import Encoder
from semantic_rdf.hdc.hebbian import SCHEMA as HEBBIAN_SCHEMA
from semantic_rdf.hdc.hebbian import Hebbian, transaction

__all__ = ["SideTables", "ReconcileReport", "EntityRow", "NAME_WORD", "entity_keys", "side_path", "corrupt", "NOTICE"]

# Where a repaired side-table file is announced (stderr: the command line's channel for commentary).
NOTICE = lambda message: print(f"semantic-rdf: notice: {message}", file=sys.stderr)  # noqa: E731
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26


def corrupt(exc: BaseException) -> bool:
    """Whether SQLite says the file is damaged or not a database (not: locked, busy, unwritable)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS terms (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('e', 'p')),
    text TEXT NOT NULL,
    vec BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS facts (
    id TEXT PRIMARY KEY,
    s TEXT NOT NULL,
    p TEXT NOT NULL,
    o TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS facts_s ON facts (s);
CREATE INDEX IF NOT EXISTS facts_o ON facts (o);
CREATE INDEX IF NOT EXISTS facts_p ON facts (p);
CREATE TABLE IF NOT EXISTS paths (
    doc_id TEXT PRIMARY KEY,
    vec BLOB NOT NULL,
    path_count INTEGER NOT NULL,
    paths TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS words (word TEXT PRIMARY KEY, piece INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entities (
    iri TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    folded TEXT NOT NULL,
    cls TEXT NOT NULL,
    aliases TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entities_folded ON entities (folded);
CREATE TABLE IF NOT EXISTS entity_keys (
    key TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('n', 'a', 'l')),
    iri TEXT NOT NULL,
    PRIMARY KEY (key, kind, iri)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entity_keys_iri ON entity_keys (iri);
"""

# A row of the entity registry as the side tables keep it: (iri, name, folded name, class, other names).
EntityRow = tuple[str, str, str, str, tuple[str, ...]]
_IN_CHUNK = 900  # values bound per `IN (…)`, under SQLite's variable limit on any build


def _in_chunks(conn: sqlite3.Connection, sql: str, values: Sequence[str], first: tuple[str, ...] = ()) -> Iterator[tuple]:
    """The rows of `sql` run once per chunk of `values`: its one `{}` becomes that chunk's `?` placeholders, and
    the values (after `first`) are bound to them, never pasted into the text."""
    for k in range(0, len(values), _IN_CHUNK):
        part = values[k : k + _IN_CHUNK]
        yield from conn.execute(sql.format(",".join("?" * len(part))), (*first, *part))


# A word of a folded name, as the answer path's linker cuts names and questions (answer/answerer.py uses it).
NAME_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def entity_keys(folded: str, aliases: Iterable[str]) -> set[tuple[str, str]]:
    """The keys an entity is found by for a question: ("n", its folded name's words joined by one space), ("a",
    each other name's likewise) and ("l", the last word of its name). The linker links a name or an other name
    only where its words are a run of the question's words, and pairs a linked name with the people whose name
    ends in its last word (surnames), so the entities keyed by the question's runs, and then those keyed by the
    last words of theirs, are every entity it can link or pair (`SideTables.entities_for_words`)."""
    ws = NAME_WORD.findall(folded)
    out = {("n", " ".join(ws)), ("l", ws[-1])} if ws else set()
    for a in aliases:
        aw = NAME_WORD.findall(fold(a))
        if aw:
            out.add(("a", " ".join(aw)))
    return out


def side_path(store_dir: str | Path) -> Path:
    """Where the side tables of an on-disk store live: a sibling file, <store>.side.sqlite."""
    p = Path(store_dir)
    return p.with_name(p.name + ".side.sqlite")


@dataclass(frozen=True, slots=True)
class ReconcileReport:
    added: int
    removed: int
    reencoded: int


class SideTables:
    def __init__(self, path: str | Path | None, config: Config = Config(), encoder: Encoder | None = None):
        self.path = None if path is None else Path(path)
        self.config = config
        self._encoder = encoder
        # writes of derived rows (facts, terms, paths) through this object: the owner of a "closed" mark tells
        # its own from others' (hdc/memory.py), since rows written outside its bookkeeping void the mark
        self.writes = 0
        # True when the file was missing or unreadable and opened empty: its owner must fill it from the store
        # (Memory.attach does), as everything in it but the Hebbian weights is derived from the store.
        self.rebuilt = self.path is not None and not self.path.exists()
        try:
            self._open()
        except sqlite3.DatabaseError as e:
            if self.path is None or not corrupt(e):
                raise
            self.reset(str(e))

    def reset(self, why: str) -> None:
        """Replace a damaged file with an empty one (`rebuilt`), with a notice. The damaged file is deleted,
        not kept aside: it may hold names of erased assertions that secure_delete was to overwrite."""
        try:
            self.conn.close()
        except (AttributeError, sqlite3.Error):
            pass
        assert self.path is not None
        for p in (self.path, *(self.path.with_name(self.path.name + x) for x in ("-wal", "-shm", "-journal"))):
            p.unlink(missing_ok=True)
        NOTICE(f"side tables {self.path} were unreadable ({' '.join(why.split())[:200]}); rebuilt from the store (Hebbian weights start again)")
        self._open()
        self.rebuilt = True

    def _open(self) -> None:
        path, config = self.path, self.config
        self._words_ready = False
        try:
            self.conn = sqlite3.connect(":memory:" if path is None else str(path), isolation_level=None, timeout=5.0)
            self.conn.execute("PRAGMA secure_delete = ON")
            self.conn.execute("PRAGMA foreign_keys = ON")
            if path is not None:
                self.conn.execute("PRAGMA journal_mode = WAL")
                self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.executescript(SCHEMA + HEBBIAN_SCHEMA)
        except sqlite3.OperationalError as e:
            if "locked" in str(e):
                raise StoreInUse(f"side tables {path} are locked by another process") from None
            raise
        with transaction(self.conn):
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('layout', ?)", (self._layout(),))
        if self._meta("layout") != self._layout():
            raise InvalidInput(f"side tables were written with layout {self._meta('layout')}, this config is {self._layout()}")
        self.hebbian = Hebbian(self.conn, eta=config.hebbian_eta, gamma=config.hebbian_gamma, threshold=config.priming_threshold)

    # ---- plumbing

    def _layout(self) -> str:
        return f"D={self.config.dim}"

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    @property
    def encoder(self) -> Encoder:
        """The encoder given, else the default one; beside an on-disk store it finds one-piece words through
        the `words` table (`word_piece`), so a process that encodes a question never loads the tokenizer."""
        if self._encoder is None:
            from semantic_rdf.hdc.wordvectors import TabledWords, default_word_vectors

            wv = default_word_vectors()
            self._encoder = self.config.encoder(TabledWords(wv, self.word_piece) if self.path is not None else wv)
        return self._encoder

    def word_piece(self, word: str) -> int | None:
        """The default word vectors' piece id of `word` if the tokenizer reads it as one piece, else None.
        The table of such words (vocabulary, not data) is built on first use, once per file and
        word-vector signature; LookupError if it cannot be written here (the caller then uses the tokenizer)."""
        if not self._words_ready:
            self._build_words()
        try:
            row = self.conn.execute("SELECT piece FROM words WHERE word = ?", (word,)).fetchone()
            return None if row is None else int(row[0])
        except (sqlite3.Error, TypeError, ValueError) as e:  # a damaged table: the tokenizer answers instead
            raise LookupError(f"word table unreadable: {e}") from None

    def _build_words(self) -> None:
        from semantic_rdf.hdc.wordvectors import default_word_vectors

        wv = default_word_vectors()
        if self._meta("words") != wv.signature or self._meta("words_centre") is None:
            try:
                with transaction(self.conn):
                    self.conn.execute("DELETE FROM words")
                    self.conn.executemany("INSERT OR REPLACE INTO words VALUES (?, ?)", wv.one_piece_words())
                    # the vectors' mean row too: computing it reads every row
                    self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('words_centre', ?)", (wv.centre.tobytes().hex(),))
                    self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('words', ?)", (wv.signature,))
            except sqlite3.OperationalError as e:  # read-only file or directory, locked past the timeout
                raise LookupError(f"no word table: {e}") from None
        else:
            try:
                wv.use_centre(np.frombuffer(bytes.fromhex(self._meta("words_centre") or ""), dtype=np.float32))
            except ValueError:
                pass  # unreadable: the vectors compute it
        self._words_ready = True

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "SideTables":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def vacuum(self) -> None:
        """Checkpoint the WAL and rebuild the file so freed pages are gone."""
        if self.path is not None:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.execute("VACUUM")
        if self.path is not None:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @property
    def stale(self) -> bool:
        """True if stored vectors were made by a different encoder (reconcile re-encodes them)."""
        sig = self._meta("encoder")
        return sig is not None and sig != self.encoder.signature

    # ---- facts and term vectors

    @staticmethod
    def _check(rec: Sequence[str]) -> tuple[str, str, str, str]:
        if len(rec) != 4 or not all(isinstance(x, str) and x.strip() for x in rec):
            raise InvalidInput("a fact record is (id, subject, predicate, object), all non-empty strings")
        return rec[0], rec[1], rec[2], rec[3]

    def _ensure_terms(self, terms: dict[str, tuple[str, str]]) -> None:
        """Insert vectors for term keys not stored yet. terms: key -> (kind, text)."""
        if not terms:
            return
        keys = list(terms)
        have: set[str] = set()
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = "SELECT key FROM terms WHERE key IN (%s)" % ",".join("?" * len(chunk))
            have.update(r[0] for r in self.conn.execute(q, chunk))
        todo = [k for k in keys if k not in have]
        if not todo:
            return
        vecs = self.encoder.encode_many([terms[k][1] for k in todo])
        self.conn.executemany(
            "INSERT INTO terms (key, kind, text, vec) VALUES (?, ?, ?, ?)",
            [(k, terms[k][0], terms[k][1], vecs[i].tobytes()) for i, k in enumerate(todo)],
        )

    def put_facts(self, records: Iterable[Sequence[str]]) -> int:
        """Write (id, subject, predicate, object) facts with their vectors; returns how many were new."""
        self.writes += 1
        recs = [self._check(r) for r in records]
        if not recs:
            return 0
        with transaction(self.conn):
            if self._meta("encoder") is None:
                self.conn.execute("INSERT INTO meta VALUES ('encoder', ?)", (self.encoder.signature,))
            terms: dict[str, tuple[str, str]] = {}
            rows = []
            for fid, s, p, o in recs:
                ks, kp, ko = entity_key(s), predicate_key(p), entity_key(o)
                terms.setdefault(ks, ("e", s))
                terms.setdefault(ko, ("e", o))
                terms.setdefault(kp, ("p", p))
                rows.append((fid, ks, kp, ko))
            self._ensure_terms(terms)
            before = self.conn.total_changes
            self.conn.executemany("INSERT OR IGNORE INTO facts (id, s, p, o) VALUES (?, ?, ?, ?)", rows)
            return self.conn.total_changes - before

    def remove_facts(self, ids: Iterable[str]) -> int:
        """Delete facts, and every term vector no remaining fact uses."""
        self.writes += 1
        ids = list(ids)
        if not ids:
            return 0
        with transaction(self.conn):
            before = self.conn.total_changes
            self.conn.executemany("DELETE FROM facts WHERE id = ?", [(i,) for i in ids])
            n = self.conn.total_changes - before
            self._drop_orphan_terms()
        return n

    def _drop_orphan_terms(self) -> None:
        self.conn.execute(
            "DELETE FROM terms WHERE NOT EXISTS (SELECT 1 FROM facts WHERE facts.s = terms.key OR facts.o = terms.key OR facts.p = terms.key)"
        )

    def fact_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT id FROM facts")}

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM facts").fetchone()[0])

    def term_vector(self, name: str, kind: str = "e") -> bytes | None:
        key = entity_key(name) if kind == "e" else predicate_key(name)
        row = self.conn.execute("SELECT vec FROM terms WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def entities(self) -> tuple[list[str], np.ndarray]:
        """(names, packed uint8 (n, D/8)) of every stored entity — the reservoir fingerprint codebook."""
        rows = self.conn.execute("SELECT text, vec FROM terms WHERE kind = 'e' ORDER BY key").fetchall()
        nb = self.config.packed_bytes
        if not rows:
            return [], np.zeros((0, nb), dtype=np.uint8)
        return [r[0] for r in rows], np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint8).reshape(len(rows), nb)

    def reconcile(self, records: Iterable[Sequence[str]]) -> ReconcileReport:
        """Make the fact rows equal the store's facts: `records` are (id, s, p, o) of every
        assertion the RDF store holds (believed ones). Missing rows are encoded, rows for ids the
        store no longer has are removed, and all vectors are re-encoded if the encoder changed."""
        self.writes += 1
        recs = {r[0]: r for r in (self._check(x) for x in records)}
        with transaction(self.conn):
            reencoded = 0
            if self.stale:
                rows = self.conn.execute("SELECT key, text FROM terms").fetchall()
                vecs = self.encoder.encode_many([r[1] for r in rows])
                self.conn.executemany("UPDATE terms SET vec = ? WHERE key = ?", [(vecs[i].tobytes(), r[0]) for i, r in enumerate(rows)])
                reencoded = len(rows)
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('encoder', ?)", (self.encoder.signature,))
            have = self.fact_ids()
            orphans = [i for i in have if i not in recs]
            missing = [recs[i] for i in recs if i not in have]
            removed = self.remove_facts(orphans)
            added = self.put_facts(missing)
        return ReconcileReport(added, removed, reencoded)

    def index(self) -> FactIndex:
        """The in-memory FactIndex of every stored fact (vectorised load, no re-encoding). Each term's vector
        is read once, not once per fact that uses it (a join per fact copied every vector three times)."""
        idx = FactIndex(self.config)
        facts = self.conn.execute("SELECT id, s, p, o FROM facts").fetchall()
        if not facts:
            return idx
        nb = self.config.packed_bytes
        row: dict[str, int] = {}
        blobs: list[bytes] = []
        for key, vec in self.conn.execute("SELECT key, vec FROM terms"):
            row[key] = len(blobs)
            blobs.append(vec)
        vectors = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), nb)
        del blobs
        known = [f for f in facts if f[1] in row and f[2] in row and f[3] in row]  # as the join: complete rows only

        def slot(col: int) -> tuple[list[str], np.ndarray]:
            keys = [f[col] for f in known]
            return keys, vectors[np.fromiter((row[k] for k in keys), dtype=np.int64, count=len(keys))]

        idx.add_many([f[0] for f in known], slot(1), slot(2), slot(3))
        return idx

    def index_of(self, ids: Iterable[str]) -> FactIndex:
        """The FactIndex of the stored facts among `ids` only (indexed reads: what the gate needs for one
        question's candidates, whatever the size of the store). Its rows are in `ids`' order."""
        idx = FactIndex(self.config)
        order = list(dict.fromkeys(ids))
        facts: dict[str, tuple[str, str, str, str]] = {
            f[0]: f for f in _in_chunks(self.conn, "SELECT id, s, p, o FROM facts WHERE id IN ({})", order)
        }
        keys = list(dict.fromkeys(t for f in facts.values() for t in f[1:]))
        vec: dict[str, bytes] = dict(_in_chunks(self.conn, "SELECT key, vec FROM terms WHERE key IN ({})", keys))
        known = [facts[i] for i in order if i in facts and all(t in vec for t in facts[i][1:])]  # as index(): complete rows only
        if not known:
            return idx
        nb = self.config.packed_bytes

        def slot(col: int) -> tuple[list[str], np.ndarray]:
            ks = [f[col] for f in known]
            return ks, np.frombuffer(b"".join(vec[x] for x in ks), dtype=np.uint8).reshape(len(ks), nb)

        idx.add_many([f[0] for f in known], slot(1), slot(2), slot(3))
        return idx

    # ---- the entity registry, looked up by word (the answer path's linker reads only what a question names)

    @property
    def entities_ready(self) -> bool:
        """True while the entity rows are those of the store's registry (set by `set_entities`; cleared by
        `forget_entities` when a change of the registry was not followed)."""
        return self._meta("entity_keys") == "in step"

    def set_entities(self, rows: Iterable[EntityRow]) -> None:
        """Replace every entity row with `rows` (the whole registry) and mark them in step."""
        with transaction(self.conn):
            self.conn.execute("DELETE FROM entity_keys")
            self.conn.execute("DELETE FROM entities")
            self.conn.execute("DELETE FROM meta WHERE key = 'entity_words_max'")
            self._put_entities(rows, fresh=True)
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('entity_keys', 'in step')")

    def put_entities(self, rows: Iterable[EntityRow], gone: Iterable[str] = ()) -> None:
        """Write (or rewrite) these entities' rows and remove those of `gone` (IRIs), keeping the mark."""
        with transaction(self.conn):
            self._drop_entities(list(gone))
            self._put_entities(rows)

    def forget_entities(self) -> None:
        """The registry changed in a way not followed here (an erasure among them): every entity row is deleted,
        names and all, and the rows are rebuilt from the store before the next lookup."""
        with transaction(self.conn):
            self.conn.execute("DELETE FROM meta WHERE key = 'entity_keys'")
            self.conn.execute("DELETE FROM meta WHERE key = 'entity_words_max'")
            self.conn.execute("DELETE FROM entity_keys")
            self.conn.execute("DELETE FROM entities")

    def entities_for_words(self, words: Sequence[str], folded: Iterable[str] = ()) -> list[EntityRow]:
        """The entities a question of these folded words (in order) can link or pair (`entity_keys`), plus those
        whose folded name is one of `folded`, ordered by IRI: the names and other names that are a run of the
        words, then the names ending in the last word of one of those."""
        longest = int(self._meta("entity_words_max") or 0)
        runs = {" ".join(words[i : i + n]) for n in range(1, min(longest, len(words)) + 1) for i in range(len(words) - n + 1)}
        iris = self._keyed(runs, ("n", "a")) | self._iris("SELECT iri FROM entities WHERE folded IN ({})", list(dict.fromkeys(folded)))
        found = self._rows(iris)
        lasts = {w[-1] for r in found for w in (NAME_WORD.findall(r[2]),) if w}
        return self._rows(iris | self._keyed(lasts, ("l",)))

    def entity_rows(self, iris: Iterable[str]) -> list[EntityRow]:
        """The entity rows of these IRIs (those held), ordered by IRI."""
        return self._rows(set(iris))

    def _keyed(self, keys: Iterable[str], kinds: tuple[str, ...]) -> set[str]:
        return {
            r[0] for kind in kinds for r in _in_chunks(self.conn, "SELECT iri FROM entity_keys WHERE kind = ? AND key IN ({})", list(keys), (kind,))
        }

    def _iris(self, query: str, values: list[str]) -> set[str]:
        return {r[0] for r in _in_chunks(self.conn, query, values)}

    def _rows(self, iris: set[str]) -> list[EntityRow]:
        rows = _in_chunks(self.conn, "SELECT iri, name, folded, cls, aliases FROM entities WHERE iri IN ({})", sorted(iris))
        return sorted((r[0], r[1], r[2], r[3], tuple(json.loads(r[4]))) for r in rows)

    def _put_entities(self, rows: Iterable[EntityRow], fresh: bool = False) -> None:
        rows = list(rows)
        if not fresh:
            self._drop_entities([r[0] for r in rows])
        self.conn.executemany(
            "INSERT INTO entities (iri, name, folded, cls, aliases) VALUES (?, ?, ?, ?, ?)",
            [(r[0], r[1], r[2], r[3], json.dumps(list(r[4]), ensure_ascii=False)) for r in rows],
        )
        keys = [(key, kind, r[0]) for r in rows for kind, key in entity_keys(r[2], r[4])]
        self.conn.executemany("INSERT OR IGNORE INTO entity_keys (key, kind, iri) VALUES (?, ?, ?)", keys)
        # the most words a name or other name has: the longest run of a question's words worth looking up
        longest = max((k[0].count(" ") + 1 for k in keys if k[1] != "l"), default=0)
        if longest > int(self._meta("entity_words_max") or 0):
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('entity_words_max', ?)", (str(longest),))

    def _drop_entities(self, iris: list[str]) -> None:
        for sql in ("DELETE FROM entity_keys WHERE iri IN ({})", "DELETE FROM entities WHERE iri IN ({})"):
            for _ in _in_chunks(self.conn, sql, iris):
                pass

    def fact_ids_among(self, ids: Iterable[str]) -> set[str]:
        """Those of `ids` that have a fact row."""
        return {r[0] for r in _in_chunks(self.conn, "SELECT id FROM facts WHERE id IN ({})", sorted(set(ids)))}

    def fact_rows(self, ids: Iterable[str]) -> list[tuple[str, str, str, str]]:
        """(id, subject, predicate, object) as the facts were put (their terms' texts), for those of `ids` held."""
        sql = (
            "SELECT f.id, ts.text, tp.text, to_.text FROM facts f JOIN terms ts ON ts.key = f.s "
            "JOIN terms tp ON tp.key = f.p JOIN terms to_ ON to_.key = f.o WHERE f.id IN ({})"
        )
        return [(r[0], r[1], r[2], r[3]) for r in _in_chunks(self.conn, sql, sorted(set(ids)))]

    def fact_texts(self, fact_id: str) -> tuple[str, str, str] | None:
        row = self.conn.execute(
            "SELECT ts.text, tp.text, to_.text FROM facts f JOIN terms ts ON ts.key = f.s "
            "JOIN terms tp ON tp.key = f.p JOIN terms to_ ON to_.key = f.o WHERE f.id = ?",
            (fact_id,),
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    # ---- document path memories

    def put_paths(self, doc_id: str, packed: np.ndarray | bytes, paths: Sequence[Sequence[str]]) -> None:
        """Store a document's superposed path vector and its paths (each a list s0, p1, e1, p2, e2, …)."""
        self.writes += 1
        vec = bytes(np.asarray(packed, dtype=np.uint8).tobytes() if not isinstance(packed, (bytes, bytearray)) else packed)
        if len(vec) != self.config.packed_bytes:
            raise InvalidInput(f"a path memory is {self.config.packed_bytes} bytes, got {len(vec)}")
        if not isinstance(doc_id, str) or not doc_id:
            raise InvalidInput("a path memory needs a document id")
        with transaction(self.conn):
            self.conn.execute(
                "INSERT OR REPLACE INTO paths (doc_id, vec, path_count, paths) VALUES (?, ?, ?, ?)",
                (doc_id, vec, len(paths), json.dumps([list(p) for p in paths], ensure_ascii=False)),
            )

    def path_memory(self, doc_id: str) -> tuple[bytes, list[list[str]]] | None:
        row = self.conn.execute("SELECT vec, paths FROM paths WHERE doc_id = ?", (doc_id,)).fetchone()
        return None if row is None else (bytes(row[0]), json.loads(row[1]))

    @property
    def paths_built(self) -> bool:
        """True once a sync built every document's path memory (a new or reset file has not)."""
        return self._meta("paths") == "built"

    @property
    def store_generation(self) -> str | None:
        """The store fingerprint (store/generation.py) of the last close at which these tables were in step."""
        return self._meta("store_generation")

    def mark_store_generation(self, generation: str | None) -> None:
        """Record `generation` as the mark (None: no mark, the next process reconciles)."""
        with transaction(self.conn):
            if generation is None:
                self.conn.execute("DELETE FROM meta WHERE key = 'store_generation'")
            else:
                self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('store_generation', ?)", (generation,))

    def mark_paths_built(self) -> None:
        with transaction(self.conn):
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('paths', 'built')")

    def path_documents(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT doc_id FROM paths ORDER BY doc_id")]

    def remove_paths(self, doc_id: str) -> bool:
        self.writes += 1
        with transaction(self.conn):
            return self.conn.execute("DELETE FROM paths WHERE doc_id = ?", (doc_id,)).rowcount > 0
