"""What `ingest` says and records: unchanged re-ingests, documents with no facts, named stdin; JSON errors."""

from __future__ import annotations

import json

import pytest

from _security import assert_refused, dump, run_cli

FACT = "Marie Curie was born in Warsaw.\n"
NOTHING = "The weather was pleasant all week.\n"


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "in").mkdir()
    a, b = tmp_path / "in" / "a.txt", tmp_path / "in" / "b.txt"
    a.write_text(FACT)
    b.write_text(NOTHING)
    return a, b


def test_an_unchanged_reingest_says_nothing_new_and_records_nothing(tmp_path, files):
    store = tmp_path / "s"
    first = run_cli(store, "--json", "ingest", "--extractor", "rules", *map(str, files))
    assert first.rc == 0 and json.loads(first.out)["run"]
    before = dump(store)
    again = run_cli(store, "ingest", "--extractor", "rules", *map(str, files))
    assert again.rc == 0 and again.out.startswith("nothing new: 2 document(s) unchanged")
    assert dump(store) == before  # not even a run activity
    files[0].write_text(FACT + "Pierre Curie was born in Paris.\n")  # changed content is read again
    third = run_cli(store, "--json", "ingest", "--extractor", "rules", str(files[0]))
    data = json.loads(third.out)
    assert data["run"] and data["new"] == 1 and data["unchanged_documents"] == []


def test_documents_that_gave_no_assertion_are_counted_and_listed_with_verbose(tmp_path, files):
    r = run_cli(tmp_path / "s", "ingest", "--extractor", "rules", *map(str, files))
    assert "no facts    1 document(s) gave no assertion (--verbose lists them)" in r.out
    r = run_cli(tmp_path / "s2", "ingest", "--extractor", "rules", "--verbose", *map(str, files))
    lines = r.out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("no facts"))
    assert lines[at + 1].strip() == "b.txt"
    data = json.loads(run_cli(tmp_path / "s3", "--json", "ingest", "--extractor", "rules", *map(str, files)).out)
    assert data["no_assertions"] == ["b.txt"]


def test_stdin_is_recorded_under_the_given_name(tmp_path):
    store = tmp_path / "s"
    r = run_cli(store, "ingest", "-", "--name", "notes/curie.txt", "--extractor", "rules", stdin=FACT.encode())
    assert r.rc == 0, r.err
    listed = run_cli(store, "--json", "list", "--source", "notes/curie.txt")
    assert len(json.loads(listed.out)["assertions"]) == 1
    before = dump(store)
    assert_refused(run_cli(store, "ingest", str(tmp_path), "--name", "x"))  # --name without -
    assert_refused(run_cli(store, "ingest", "-", "--name", "n" * 1001, stdin=b"x"))
    assert dump(store) == before


@pytest.mark.parametrize(
    "argv, kind",
    [
        (["stats"], "NotFound"),  # a library refusal
        (["assert", "a", "b"], "UsageError"),  # argparse
        (["assert", "Ada", "born in", "London"], "InvalidInput"),
    ],
)
def test_errors_are_json_under_json(tmp_path, argv, kind):
    store = tmp_path / "missing"
    r = run_cli(store, "--json", *argv)
    assert r.rc == 2 and r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1
    err = json.loads(lines[0])
    assert err["kind"] == kind and err["exit"] == 2 and err["error"]
    plain = run_cli(store, *argv)
    assert plain.rc == 2 and not plain.err.startswith("{")


def test_ingesting_the_folder_that_holds_the_store_does_not_read_the_store(tmp_path, files):
    """The store's folder and its side tables (<store>.side.sqlite, -wal, -shm) are skipped, with the
    --exclude patterns given (which stand for the default ones)."""
    folder = files[0].parent
    store = folder / "my [store]"  # a name that is a glob pattern too
    for _ in range(2):  # the second time, the store and its side tables exist
        r = run_cli(store, "--json", "ingest", "--extractor", "rules", "--exclude", "b.*", str(folder))
        assert r.rc == 0, r.err
        data = json.loads(r.out)
        assert data.get("failed", []) == [], data["failed"]
    assert (folder / "my [store].side.sqlite").exists() and (store / "oxigraph").is_dir()
