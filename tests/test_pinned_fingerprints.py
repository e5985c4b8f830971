"""Refactors keep results (issue 46): the pinned sample of tests/fixtures/record_fingerprints.py
(both games, every strategy, search and user seats, rule variants, 2-10 players) replays to the
table and replay hashes recorded before the engine restructuring."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.record_fingerprints import HERE, fingerprint

RECORDED = json.loads(HERE.read_text())


@pytest.mark.parametrize("row", RECORDED, ids=[r["id"] for r in RECORDED])
def test_pinned_fingerprints_are_unchanged(row):
    got = fingerprint(row)
    assert got == {k: row[k] for k in ("games_sha", "seats_sha", "replay_sha")}, row["id"]
