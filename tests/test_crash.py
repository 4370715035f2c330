"""Crash consistency: 20 SIGKILLs of a writer at random moments (bench/crash_harness.py, driver mode).

Each trial kills a child that writes batches through AssertionStore.assert_triples and indexes them in
the side tables, acknowledging each batch on stdout only after both commits. The third batch of every
child holds 1,800 assertions (~56k quads), over store._BULK_THRESHOLD, so it takes the journaled bulk
path (journal.nq written and renamed, Store.bulk_load, journal removed); about a third of the kills are
aimed at that window (fired within 0.35 s of the journal appearing), the rest land at random. Afterwards
the store must open (replaying a journal left behind), pass the compiled shapes and the integrity rules,
hold every acknowledged assertion, show no half batch (big or small), and its side tables must hold every
acknowledged fact and reconcile exactly with it.
The longer run (50 trials, killing `semantic-rdf ingest` whose first batch is ~155k quads) is
`python bench/crash_harness.py --trials 50`.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import crash_harness  # noqa: E402


def test_sigkill_loses_nothing_acknowledged_and_leaves_a_valid_store():
    verdicts = crash_harness.run(20, "driver", seed=23, max_delay=1.0, quiet=True, fork=True, journal_share=0.2, reuse=5)
    assert len(verdicts) == 20
    bad = [v.line() for v in verdicts if not v.ok]
    assert not bad, "\n".join(bad)
    # the kills must have landed while writing, not only before the first batch
    assert sum(1 for v in verdicts if v.acked) >= 10, [v.line() for v in verdicts]
    # ... and some while a bulk batch was journaled (so the next open replayed it), and some big
    # batches must have been acknowledged before the kill (so the bulk path's acknowledgements are held too)
    assert sum(v.journal for v in verdicts) >= 2, [v.line() for v in verdicts]
    assert sum(v.bulk_acked for v in verdicts) >= 1, [v.line() for v in verdicts]


def test_verify_detects_a_lost_acknowledgement_and_a_half_batch(tmp_path):
    # the checker must be able to fail: acknowledge an id that was never written, and write half a batch
    from semantic_rdf.store.assertions import AssertionStore
    from semantic_rdf.core.values import Triple

    store_dir = tmp_path / "store"
    s = AssertionStore.open(store_dir)
    half = crash_harness.sentences(7)[: crash_harness.PER_BATCH // 2]
    with s.run("statement", agent="test") as run:
        s.assert_triples([Triple(a, p, o) for a, p, o in half], run=run)
    s.close()
    v = crash_harness.verify(store_dir, {"0123456789abcdef"}, range(7, 8), 0)
    assert v.lost == ["0123456789abcdef"] and v.half_batches == [7] and not v.ok
