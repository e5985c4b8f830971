"""A run in which no round has a winner (AT-D1: a hand size near the deck's share) still gets
a report: the seat and score sections say there is nothing to measure instead of failing."""

import cardsim


def test_a_run_without_any_winner_is_reported(tmp_path):
    cardsim.run("atlas", tmp_path / "r", games=20, seed=0, players=10, rules={"hand_size": 19})
    run = cardsim.open_run(tmp_path / "r")
    assert run.games.select("winner").collect()["winner"].null_count() == 20  # none decided
    result = cardsim.report(tmp_path / "r", tmp_path / "r.html", json_out=tmp_path / "r.json")
    text = (tmp_path / "r.html").read_text()
    assert "no round had a winner" in text and result is not None
