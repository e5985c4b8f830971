"""原子 ``pimc`` (kernels/yuanzi/pimc.py): names, YZ-28 information, legality, strength,
reproducibility.

Runs are small (a few samples per decision) so the file stays quick once compiled.
"""

import numpy as np
import pytest
from cardsim.kernels.rng import STREAM_DEAL, STREAM_STRATEGY, seed_stream
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import pimc
from cardsim.kernels.yuanzi import state as S
from cardsim.kernels.yuanzi.encoding import COPIES, N_CARDS, N_TYPES, TRIPLE, pack_move, parse_card
from cardsim.kernels.yuanzi.rules import apply_move, begin_half, draw_half_deck, legal_moves
from cardsim.kernels.yuanzi.state import N_INFO, N_ST, ST_ACTOR, rules_array
from cardsim.sim.compare import DuplicateEngine, build_compare_config
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import ENGINE, PIMC_DEFAULT, pimc_id
from cardsim.sim.games.yuanzi.reference import half as ref_half
from cardsim.sim.games.yuanzi.reference import rules as ref_rules
from cardsim.sim.strategy_params import split_strategies

from tests.games.yuanzi.test_agreement import agree

#: the driver: it calls the search strategies through its search table (kernels/call_tables.py)
SEARCH = drv


@pytest.fixture(autouse=True, scope="module")
def _search_table():
    drv.load_search()  # pimc and ismcts compiled (or loaded) and entered in the table


SMALL = "pimc:samples=3,cap=4"


def test_pimc_names_and_parameters():
    assert pimc_id("pimc") == pimc.encode(*PIMC_DEFAULT)
    assert pimc_id("pimc:samples=32") == pimc.encode(32, PIMC_DEFAULT[1], 0, PIMC_DEFAULT[3])
    assert pimc_id("pimc:samples=16,rollout=greedy") == pimc.encode(
        16, PIMC_DEFAULT[1], 0, PIMC_DEFAULT[3]
    )
    assert pimc_id("pimc:cap=3,rollout=random") == pimc.encode(
        PIMC_DEFAULT[0], 3, 1, PIMC_DEFAULT[3]
    )
    assert pimc.decode(pimc_id("pimc:samples=7,cap=5,rollout=random,z=2.5")) == (7, 5, 1, 25)
    cfg = build_config(ENGINE, games=10, seed=1, seat_strategies={0: "pimc:samples=4"})
    assert cfg.seats == ("pimc:samples=4", "greedy", "greedy", "greedy")
    for bad, why in [
        ("pimc:samples=0", "outside"),
        ("pimc:samples=x", "not an integer"),
        ("pimc:cap=1", "outside"),
        ("pimc:rollout=smart", "not one of"),
        ("pimc:depth=3", "unknown parameter"),
        ("pimc:samples=4,samples=5", "twice"),
        ("pimc:", "no parameters"),
        ("pimc:samples", "key=value"),
    ]:
        with pytest.raises(CardsimError, match=why):
            build_config(ENGINE, games=10, seed=1, strategy=bad)
    assert split_strategies("pimc:samples=16,rollout=greedy,greedy") == [
        "pimc:samples=16,rollout=greedy",
        "greedy",
    ]
    assert split_strategies("greedy,random") == ["greedy", "random"]


def _playout(root, g, sids, rules, on_pimc):
    """Step one first half in Python; ``on_pimc`` sees every pimc decision with a choice."""
    deck = np.empty(N_CARDS, np.uint8)
    rng_deal = np.empty(4, np.uint64)
    rng = np.empty(4, np.uint64)
    seed_stream(rng_deal, root, g, STREAM_DEAL)
    seed_stream(rng, root, g, STREAM_STRATEGY)
    p = draw_half_deck(rng_deal, deck, rules[0])
    hands = np.zeros((4, N_TYPES), np.uint8)
    played = np.zeros((4, N_TYPES), np.uint8)
    st = np.zeros(N_ST, np.int64)
    info = np.zeros((4, N_INFO), np.int64)
    begin_half(0, deck, p, 0, hands, played, st, info)
    buf = np.zeros(pimc.BUF_SIZE, np.int32)
    while True:
        seat = st[ST_ACTOR]
        before = rng.copy()
        n, idx, bad = SEARCH.decide_turn(hands, played, st, rules, sids, buf, rng)
        assert bad == 0
        code = int(buf[idx])
        if sids[seat] >= pimc.PIMC_BASE and n > 1:
            on_pimc(hands, played, st, before, n, code)
        if apply_move(code, hands, played, st, rules) == 1:
            return


def test_yz28_pimc_never_reads_hidden_cards():
    """YZ-28: permuting the other seats' true cards among themselves (same counts, same public
    history) leaves every pimc choice unchanged — and its random stream too."""
    rules = rules_array()
    sid = pimc_id(SMALL)
    sids = np.array([sid, 1, sid, 1], np.int64)
    shuffler = np.random.default_rng(7)
    checked = []

    def on_pimc(hands, played, st, before, n, code):
        seat = st[ST_ACTOR]
        others = [s for s in range(4) if s != seat]
        pool = np.repeat(np.arange(N_TYPES), hands[others].astype(int).sum(0))
        for _ in range(2):
            alt = hands.copy()
            shuffler.shuffle(pool)
            at = 0
            for s in others:
                k = int(hands[s].sum())
                alt[s] = np.bincount(pool[at : at + k], minlength=N_TYPES)
                at += k
            assert (alt[seat] == hands[seat]).all()
            if (alt == hands).all():
                continue  # late in the half a permutation may give the same hands
            buf = np.zeros(pimc.BUF_SIZE, np.int32)
            r = before.copy()
            n2, idx2, _ = SEARCH.decide_turn(alt, played, st.copy(), rules, sids, buf, r)
            assert (n2, int(buf[idx2])) == (n, code)
            checked.append(n)

    for g in range(2):
        _playout(11, g, sids, rules, on_pimc)
    assert len(checked) > 30


def test_pimc_moves_are_legal_kernel_reference_agreement():
    """Every pimc move in a traced match is in the reference's legal set (protocol §8), and the
    outcome agrees."""
    for seats, rules in [
        ((SMALL, "greedy", SMALL, "greedy"), {}),
        (("greedy", "pimc:samples=2,cap=3,rollout=random") * 2, {"pass_is_final": True}),
    ]:
        cfg = RunConfig("yuanzi", 4, seats, rules, 5, 3)
        assert agree(cfg, 0, 3) > 200


def test_pimc_reproducible_and_chunk_independent():
    cfg = RunConfig("yuanzi", 4, (SMALL, "greedy", SMALL, "greedy"), {}, 9, 6)
    whole, _ = ENGINE.play_chunk(cfg, 0, 6)
    parts = [ENGINE.play_chunk(cfg, a, 3)[0] for a in (0, 3)]
    import polars as pl

    assert whole.equals(pl.concat(parts))
    again, _ = ENGINE.play_chunk(cfg, 0, 6)
    assert whole.equals(again)


def test_pimc_beats_greedy_on_duplicate_deals():
    """Paired duplicate comparison (cardsim.sim.compare): pimc's win-rate edge over greedy has a 95 %
    interval above 0."""
    from cardsim.analysis.compare import pairwise

    engine = DuplicateEngine(ENGINE)
    name = "pimc:samples=8,cap=4"
    cfg = build_compare_config(ENGINE, [name, "greedy"], games=80, seed=3)
    _games, seats = engine.play_chunk(cfg, 0, 80)
    row = pairwise(seats).table.row(0, named=True)
    assert {row["a"], row["b"]} == {"pimc:samples=8", "greedy"}  # cap=4 is the default
    edge_lo = row["lo"] if row["a"].startswith("pimc") else -row["hi"]
    assert edge_lo > 0, row


def test_rollout_replays_the_driver():
    """From the true state of every decision of a greedy half, pimc's greedy rollout ends the half
    as the driver did (same finish order and points)."""
    from cardsim.kernels.yuanzi.encoding import MAX_MOVES
    from cardsim.kernels.yuanzi.state import ST_OUT, ST_POINTS

    rules = rules_array()
    sids = np.ones(4, np.int64)
    for g in range(2):
        states = []
        deck = np.empty(N_CARDS, np.uint8)
        rd = np.empty(4, np.uint64)
        rng = np.empty(4, np.uint64)
        seed_stream(rd, 2, g, STREAM_DEAL)
        seed_stream(rng, 2, g, STREAM_STRATEGY)
        p = draw_half_deck(rd, deck, rules[0])
        hands = np.zeros((4, N_TYPES), np.uint8)
        played = np.zeros((4, N_TYPES), np.uint8)
        st = np.zeros(N_ST, np.int64)
        info = np.zeros((4, N_INFO), np.int64)
        begin_half(0, deck, p, 0, hands, played, st, info)
        buf = np.zeros(MAX_MOVES, np.int32)
        while True:
            states.append((hands.copy(), played.copy(), st.copy()))
            _n, idx, _ = SEARCH.decide_turn(hands, played, st, rules, sids, buf, rng)
            if apply_move(int(buf[idx]), hands, played, st, rules) == 1:
                break
        final = (list(st[ST_OUT : ST_OUT + 4]), list(st[ST_POINTS : ST_POINTS + 4]))
        for h, pl_, s in states[:: max(1, len(states) // 25)]:
            rbuf = np.zeros(MAX_MOVES, np.int32)
            pimc.rollout(h, pl_, s, rules, rbuf, rng, pimc.ROLLOUT_GREEDY, pimc.TO_THE_END)
            assert (list(s[ST_OUT : ST_OUT + 4]), list(s[ST_POINTS : ST_POINTS + 4])) == final


# --- the objective: the match result in force (YZ-25, YZ-26, YZ-D1..D3) ----------------------


def _end_state(half, pts, outs, one_two=False, h0=None, up0=-1):
    """A finished half's public state: team points, the seats out in order, the first half's
    result in the match block (YZ-28) when ``h0`` is given."""
    st = np.zeros(N_ST, np.int64)
    st[S.ST_HALF] = half
    st[S.ST_DONE] = 1
    st[S.ST_TEAM_PTS : S.ST_TEAM_PTS + 2] = pts
    st[S.ST_NOUT] = len(outs)
    st[S.ST_FINISH : S.ST_FINISH + 4] = 4
    for i, s in enumerate(outs):
        st[S.ST_OUT + i] = s
        st[S.ST_FINISH + s] = i + 1
    st[S.ST_ONE_TWO] = 1 if one_two else 0
    st[S.ST_MATCH : S.ST_RULES] = -1
    if h0 is not None:
        st[S.ST_H0_TEAM_PTS : S.ST_H0_TEAM_PTS + 2] = h0
        st[S.ST_H0_UPSTREAM] = up0
    return st


MATCH_SETTINGS = [
    {"match_points_win": w, "match_points_shuangjia": s, "shuangjia_threshold": t}
    for w, s, t in [(1, 2, 60), (1, 1, 0), (3, 2, 150), (10, 10, 300), (2, 5, 60), (5, 1, 95)]
]


@pytest.mark.parametrize("options", MATCH_SETTINGS + [{"shuangjia": "upstream_team"}])
def test_objective_is_the_match_result_in_force(options):
    """Second half: ``1000 × match result + the half's points``, the result on both halves
    (YZ-26; a 300 : 300 tie to the first-half 上游's team) in the match points in force (YZ-D2).
    First half: the 双夹 stake (YZ-25, YZ-D1, YZ-D3) as the driver settles it, else what the
    half carries into the match (its margin, the 上游's tie-break; issue 45 item 7) × YZ-D2."""
    rules = rules_array(options)
    w = int(rules[S.R_MATCH_POINTS_WIN])
    sj_pts = int(rules[S.R_MATCH_POINTS_SHUANGJIA])
    # the example: 240 : 60, then 100 : 200 -> team 0 wins the match 340 : 260
    st = _end_state(1, (100, 200), [1, 0, 3], h0=(240, 60), up0=2)
    assert pimc.objective(st, 0, rules) == 1000 * w + 100
    assert pimc.objective(st, 1, rules) == -1000 * w + 200
    for h0, h1, up0 in [
        ((240, 60), (100, 200), 1),
        ((150, 150), (200, 100), 0),
        ((100, 200), (160, 140), 0),  # second half won, match lost 260 : 340
        ((140, 160), (160, 140), 0),  # 300 : 300, the first-half 上游 (seat 0) decides
        ((140, 160), (160, 140), 3),
        ((60, 240), (300, 0), 1),  # a second-half 1-2 finish is no 双夹 (YZ-25: first half only)
    ]:
        st = _end_state(1, h1, [2, 1, 0], one_two=False, h0=h0, up0=up0)
        winner = ref_rules.match_winner(h0, h1, up0)  # YZ-26, the reference rules (the oracle)
        for team in (0, 1):
            expect = 1000 * (w if team == winner else -w) + h1[team]
            assert pimc.objective(st, team, rules) == expect, (h0, h1, up0, team)
    # first half: 南北 out first and second, 东西 scored 50 -> 双夹 below a threshold over 50
    st = _end_state(0, (250, 50), [0, 2, 1])
    t = int(rules[S.R_SHUANGJIA_THRESHOLD])
    if t > 50:
        assert pimc.objective(st, 0, rules) == 1000 * sj_pts + 250
        assert pimc.objective(st, 1, rules) == -1000 * sj_pts + 50
    else:  # no 双夹: the 200-point margin and the 上游 carry into the match (issue 45 item 7)
        assert pimc.objective(st, 0, rules) == 1000 * w * (2 * 200 + 5) // 610
        assert pimc.objective(st, 1, rules) == 1000 * w * (-2 * 200 - 5) // 610
    # and everywhere: 双夹 as the reference rules (the oracle) decide it, else the half's value
    for pts, outs, one_two in [
        ((300, 0), [0, 2], True),
        ((0, 300), [3, 1], True),
        ((250, 50), [0, 2, 1], False),
        ((205, 95), [1, 0, 2], False),
        ((150, 150), [0, 1, 2], False),
        ((100, 200), [2, 3, 1], False),
        ((5, 295), [3, 0, 1], False),
        ((45, 255), [0, 1, 3], False),
    ]:
        st = _end_state(0, pts, outs, one_two=one_two)
        half0 = ref_half.HalfResult(0, list(outs), one_two, [], [], [], [], list(pts))
        sj, winner = ref_rules.shuangjia(half0, options)
        for team in (0, 1):
            p = pts[team]
            if sj:
                expect = 1000 * (sj_pts if team == winner else -sj_pts) + p
            else:  # what the half carries into the match (issue 45 item 7)
                margin, up = p - pts[1 - team], outs[0] % 2 == team
                expect = (1000 * w * (2 * margin + (5 if up else -5))) // 610
            assert pimc.objective(st, team, rules) == expect, (pts, outs, team)


def _position(hands, captured, outs, actor, dao, h0, up0, rules):
    """A second-half position with ``actor`` to lead: the cards not in a hand are played (spread
    over the seats), the first half's result (YZ-28) and the rules are in the public state."""
    h = np.zeros((4, N_TYPES), np.uint8)
    for s, cards in enumerate(hands):
        for c in cards:
            h[s, parse_card(c)] += 1
    played = np.zeros((4, N_TYPES), np.uint8)
    for t, k in enumerate(COPIES - h.sum(0)):
        for j in range(int(k)):
            played[(t + j) % 4, t] += 1
    st = np.zeros(N_ST, np.int64)
    st[S.ST_HALF] = 1
    st[S.ST_DAO] = dao
    st[S.ST_ACTOR] = st[S.ST_LEADER] = st[S.ST_LAST] = actor
    st[S.ST_TOP_SEAT] = -1
    st[S.ST_TRICKS] = 12
    st[S.ST_COUNT : S.ST_COUNT + 4] = h.sum(1)
    st[S.ST_CAPT : S.ST_CAPT + 4] = captured
    st[S.ST_FINISH : S.ST_FINISH + 4] = 4
    st[S.ST_NOUT] = len(outs)
    for i, s in enumerate(outs):
        st[S.ST_OUT + i] = s
    st[S.ST_MATCH : S.ST_RULES] = -1
    st[S.ST_H0_TEAM_PTS : S.ST_H0_TEAM_PTS + 2] = h0
    st[S.ST_H0_UPSTREAM] = up0
    st[S.ST_H0_NOUT] = 3
    st[S.ST_RULES :] = rules
    return h, played, st


def test_pimc_plays_safe_with_a_first_half_lead():
    """Team 0 leads the match 240 : 60 on the first half (YZ-28: public); second half, 西 is out
    (上游), 北 leads holding 3H AD AD AC, 东 holds 2 cards, 南 4. Any second-half score of team 0
    over 60 wins the match. Leading the single 3H (greedy's pick) lets 东 go out in about half
    the deals — a 1-2 finish, 0 : 300, the match lost 240 : 360; leading the triple AD AD AC
    never loses it (145 : 155 or 195 : 105), though it scores fewer half points on average.
    pimc plays the triple; scored on the half alone (the old objective), it kept the 3H."""
    rules = rules_array()
    hands = (["3H", "AD", "AD", "AC"], ["4H", "SJ"], ["8H", "JH", "QS", "KD"], [])
    h, played, st = _position(hands, (145, 55, 40, 50), [3], 0, 11, (240, 60), 2, rules)
    legal = np.zeros(pimc.BUF_SIZE, np.int32)
    n = legal_moves(h, st, rules, legal)
    triple = pack_move(TRIPLE, parse_card("AD") // 4, 3, 0, 0)
    assert triple in legal[:n]
    sid = pimc_id("pimc")
    for g in range(6):
        rng = np.empty(4, np.uint64)
        seed_stream(rng, 23, g, STREAM_STRATEGY)
        idx = pimc.choose_pimc(sid, h[0], played, st, rules, legal, n, rng)
        assert legal[idx] == triple, (g, int(legal[idx]))
