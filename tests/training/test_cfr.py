"""CFR family: trees built from the envs, exact exploitability against independent oracles,
convergence to the known equilibria (Kuhn's family, the values of Kuhn and Leduc)."""

from __future__ import annotations

import collections
import functools
import itertools

import numpy as np
import pytest

from holdemjax.envs import kuhn_poker as kp
from holdemjax.envs import leduc_holdem as lh
from holdemjax.training import cfr

RANKS = "JQK"
KUHN_VALUE = -1 / 18  # first player's value of Kuhn poker (Kuhn 1950)
LEDUC_VALUE = -0.0856  # first player's value of Leduc hold'em (OpenSpiel, published CFR runs)


def lines(tree: cfr.GameTree, nodes) -> list[tuple[int, ...]]:
    """The action sequence leading to each node, from the parent links."""
    out = []
    for v in nodes:
        seq = []
        while tree.parent[v] >= 0:
            seq.append(int(tree.action[v]))
            v = tree.parent[v]
        out.append(tuple(reversed(seq)))
    return out


# ------------------------------------------------------------------------------ tree sanity
def test_kuhn_tree_has_the_known_shape():
    t = cfr.game_tree("kuhn_poker")
    # 3 cards x {first player to act, second facing a pass, second facing a bet, first facing
    # pass-bet} = 12 infosets; 6 deals x 5 betting lines = 30 terminal histories.
    b, p = "b", "p"
    expected = {f"p0:{c}:" for c in RANKS} | {f"p1:{c}:{b}" for c in RANKS} | \
        {f"p1:{c}:{p}" for c in RANKS} | {f"p0:{c}:{p}{b}" for c in RANKS}
    assert set(t.infosets) == expected
    assert len(t.terminals) == 30
    B, P = kp.BET, kp.PASS
    assert set(lines(t, t.terminals)) == {(P, P), (P, B, P), (P, B, B), (B, P), (B, B)}
    roots = t.parent < 0
    assert roots.sum() == 6 and np.isclose(t.chance[roots].sum(), 1.0)


def test_leduc_tree_has_the_known_shape():
    t = cfr.game_tree("leduc_holdem")
    # Betting lines of one round: 4 end in a fold (rf, crf, rrf, crrf), 5 close it (cc, rc, crc,
    # rrc, crrc); decisions are taken after 6 prefixes ('', c, r, cr, rr, crr).
    assert len(set(lines(t, t.terminals))) == 4 + 5 * (4 + 5)
    round1 = [k for k in t.infosets if len(k.split(":")[1]) == 1]
    round2 = [k for k in t.infosets if len(k.split(":")[1]) == 2]
    assert len(round1) == 3 * 6 and len(round2) == 3 * 3 * 5 * 6 and len(t.infosets) == 288
    # OpenSpiel tells the 6 cards apart: a rank stands for 2 cards, a (rank, public rank) pair
    # for 2 x 1 cards when paired and 2 x 2 otherwise; that gives OpenSpiel's 936.
    suited = sum(2 if len(k.split(":")[1]) == 1 else
                 (2 if k.split(":")[1][0] == k.split(":")[1][1] else 4) for k in t.infosets)
    assert suited == 936
    roots = t.parent < 0
    assert roots.sum() == 24 and np.isclose(t.chance[roots].sum(), 1.0)
    # Utilities are chips: at most the 13 a player can put in.
    assert np.abs(t.utility).max() == 13


# ------------------------------------------------------- an independent brute-force oracle
class KuhnRules:
    """Kuhn poker from the rules (player 0 first), independent of the env and of the tree."""

    deals = [(1 / 6, d) for d in itertools.permutations(range(3), 2)]
    letters = {kp.BET: "b", kp.PASS: "p"}

    @staticmethod
    def actor(line):
        if line in ((), (kp.PASS,)) or line in ((kp.BET,), (kp.PASS, kp.BET)):
            return {0: 0, 1: 1, 2: 0}[len(line)]
        return None

    @staticmethod
    def legal(line):
        return [kp.BET, kp.PASS]

    @staticmethod
    def payoff0(deal, line):
        if line[-1] == kp.PASS and kp.BET in line:  # a fold: the bettor wins the ante
            folder = (len(line) - 1) % 2
            return 1.0 if folder == 1 else -1.0
        stake = 2 if kp.BET in line else 1
        return stake if deal[0] > deal[1] else -stake

    @classmethod
    def key(cls, deal, line, player):
        return f"p{player}:{RANKS[deal[player]]}:" + "".join(cls.letters[a] for a in line)


class LeducRules:
    """Leduc hold'em from the rules, dealt by card positions (120 deals, suits apart)."""

    deals = [(1 / 120, tuple(lh.DECK[i] for i in d))
             for d in itertools.permutations(range(6), 3)]
    letters = {lh.CALL: "c", lh.RAISE: "r", lh.FOLD: "f"}

    @staticmethod
    def walk(line):
        chips, rnd, raises, player, opened = [1, 1], 0, 0, 0, False
        for a in line:
            if a == lh.FOLD:
                return dict(folder=player, chips=chips)
            if a == lh.RAISE:
                chips[player] = chips[1 - player] + (2, 4)[rnd]
                raises += 1
            else:
                chips[player] = chips[1 - player]
                if opened:  # a call that does not open the round closes it
                    rnd, raises, player, opened = rnd + 1, 0, 0, False
                    if rnd == 2:
                        return dict(folder=None, chips=chips)
                    continue
            opened, player = True, 1 - player
        return dict(player=player, round=rnd, raises=raises, chips=chips)

    @classmethod
    def actor(cls, line):
        return cls.walk(line).get("player")

    @classmethod
    def legal(cls, line):
        s = cls.walk(line)
        facing = s["chips"][0] != s["chips"][1]
        return [lh.CALL] + [lh.RAISE] * (s["raises"] < 2) + [lh.FOLD] * facing

    @classmethod
    def payoff0(cls, deal, line):
        s = cls.walk(line)
        if s["folder"] is not None:
            return -s["chips"][0] if s["folder"] == 0 else s["chips"][1]
        score = [deal[p] + 10 * (deal[p] == deal[2]) for p in (0, 1)]
        return s["chips"][0] * np.sign(score[0] - score[1])

    @classmethod
    def key(cls, deal, line, player):
        public = RANKS[deal[2]] if cls.walk(line)["round"] == 1 else ""
        return f"p{player}:{RANKS[deal[player]]}{public}:" + "".join(cls.letters[a] for a in line)


def oracle_best_response(rules, policy, p):
    """Player p's best-response value against `policy`, by recursion over the histories."""
    infos = collections.defaultdict(list)  # p's infoset -> [(deal, line, chance x opp reach)]

    def collect(deal, line, w):
        pl = rules.actor(line)
        if pl is None:
            return
        if pl == p:
            infos[rules.key(deal, line, pl)].append((deal, line, w))
        for a in rules.legal(line):
            collect(deal, line + (a,), w * (1 if pl == p else policy[rules.key(deal, line, pl)][a]))

    for prob, deal in rules.deals:
        collect(deal, (), prob)

    @functools.cache
    def value(deal, line):
        pl = rules.actor(line)
        if pl is None:
            return rules.payoff0(deal, line) * (1 if p == 0 else -1)
        if pl == p:
            return value(deal, line + (best(rules.key(deal, line, pl)),))
        probs = policy[rules.key(deal, line, pl)]
        return sum(probs[a] * value(deal, line + (a,)) for a in rules.legal(line))

    @functools.cache
    def best(key):
        _, line, _ = infos[key][0]
        return max(rules.legal(line),
                   key=lambda a: sum(w * value(d, ln + (a,)) for d, ln, w in infos[key]))

    return sum(prob * value(deal, ()) for prob, deal in rules.deals)


def random_policy(env_id, seed):
    rng = np.random.default_rng(seed)
    t = cfr.game_tree(env_id)
    raw = rng.dirichlet(np.ones(t.legal.shape[1]), size=len(t.infosets)) * t.legal
    return dict(zip(t.infosets, raw / raw.sum(1, keepdims=True)))


def test_kuhn_uniform_exploitability_is_eleven_24ths():
    # Against a uniform second player, the first player's best response earns: J bets
    # (1/2 x +1 - 1/2 x 2 = -1/2, better than checking: -1), Q bets (1/2 x 1 + 1/2 x 0 = 1/2),
    # K bets or checks (3/2): mean (-1/2 + 1/2 + 3/2)/3 = 1/2. Against a uniform first
    # player, the second player with J folds to a bet (-1) and bets after a pass (-1/2),
    # Q calls (0) and bets (1/2), K calls (2) and bets (3/2): per card half of each,
    # (-3/4 + 1/4 + 7/4)/3 = 5/12. NashConv = 1/2 + 5/12 = 11/12, exploitability 11/24.
    assert cfr.exploitability("kuhn_poker", "uniform") == pytest.approx(11 / 24, abs=1e-6)
    assert cfr.exploitability("kuhn_poker", cfr.uniform_policy("kuhn_poker")) == \
        pytest.approx(11 / 24, abs=1e-6)


@pytest.mark.parametrize("env_id,rules,seeds", [("kuhn_poker", KuhnRules, (0, 1, 2)),
                                                ("leduc_holdem", LeducRules, (0,))])
def test_exploitability_matches_the_brute_force_oracle(env_id, rules, seeds):
    for seed in seeds:
        policy = random_policy(env_id, seed)
        expected = (oracle_best_response(rules, policy, 0)
                    + oracle_best_response(rules, policy, 1)) / 2
        assert cfr.exploitability(env_id, policy) == pytest.approx(expected, rel=1e-5)


# ---------------------------------------------------------------------- OpenSpiel as a peer
def openspiel_policy(env_id, policy):
    """`policy` (our keys) as an OpenSpiel TabularPolicy of kuhn_poker / leduc_poker."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as os_policy

    game = pyspiel.load_game({"kuhn_poker": "kuhn_poker", "leduc_holdem": "leduc_poker"}[env_id])
    tab = os_policy.TabularPolicy(game)
    tab.action_probability_array[:] = np.nan
    if env_id == "kuhn_poker":  # OpenSpiel: 0 pass, 1 bet; cards 0, 1, 2 = J, Q, K
        ours, letters = {0: kp.PASS, 1: kp.BET}, "pb"
    else:  # OpenSpiel: 0 fold, 1 call, 2 raise; card c has rank c // 2
        ours, letters = {0: lh.FOLD, 1: lh.CALL, 2: lh.RAISE}, "fcr"

    def key(state):
        hist = state.full_history()
        cards = [h.action for h in hist if h.player < 0]
        bets = "".join(letters[h.action] for h in hist if h.player >= 0)
        rank = (lambda c: c) if env_id == "kuhn_poker" else (lambda c: c // 2)
        pl = state.current_player()
        public = RANKS[rank(cards[2])] if len(cards) == 3 else ""
        return f"p{pl}:{RANKS[rank(cards[pl])]}{public}:{bets}"

    def walk(state):
        if state.is_terminal():
            return
        if not state.is_chance_node():
            row = tab.state_lookup[state.information_state_string()]
            for a in state.legal_actions():
                tab.action_probability_array[row, a] = policy[key(state)][ours[a]]
        for a in state.legal_actions():
            walk(state.child(a))

    walk(game.new_initial_state())
    return game, tab


@pytest.mark.parametrize("env_id", cfr.ENV_IDS)
def test_exploitability_and_value_match_openspiel(env_id):
    pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import expected_game_score
    from open_spiel.python.algorithms import exploitability as os_expl

    for policy in (cfr.uniform_policy(env_id), random_policy(env_id, 7)):
        game, tab = openspiel_policy(env_id, policy)
        legal_rows = ~np.isnan(tab.action_probability_array)
        tab.action_probability_array[~legal_rows] = 0.0
        assert legal_rows.any(axis=1).all()  # every OpenSpiel infoset got a row of ours
        assert cfr.exploitability(env_id, policy) == pytest.approx(
            os_expl.exploitability(game, tab), rel=1e-5)
        value = expected_game_score.policy_value(game.new_initial_state(), [tab, tab])[0]
        assert cfr.game_value(env_id, policy) == pytest.approx(value, abs=1e-5)


@pytest.mark.parametrize("env_id,algorithm,iterations,precision,rel", [
    ("kuhn_poker", "cfr", 200, "float32", 1e-4),
    ("kuhn_poker", "cfr+", 200, "float32", 1e-3),
    ("kuhn_poker", "dcfr", 200, "float64", 1e-6),
    ("leduc_holdem", "cfr+", 30, "float64", 1e-6),
])
def test_solvers_follow_openspiels(env_id, algorithm, iterations, precision, rel):
    # Same updates as OpenSpiel (alternating, regret matching(+), linear / t^gamma averaging):
    # the average strategies' exploitability agrees. Float32 drifts from a double run where
    # exact ties in the regrets get broken by roundoff (DCFR, Leduc), so those run in float64.
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import discounted_cfr
    from open_spiel.python.algorithms import exploitability as os_expl

    game = pyspiel.load_game({"kuhn_poker": "kuhn_poker", "leduc_holdem": "leduc_poker"}[env_id])
    peer = {"cfr": pyspiel.CFRSolver, "cfr+": pyspiel.CFRPlusSolver,
            "dcfr": discounted_cfr.DCFRSolver}[algorithm](game)
    for _ in range(iterations):
        peer.evaluate_and_update_policy()
    solver = cfr.Solver(env_id, algorithm, precision=precision)
    solver.run(iterations)
    assert solver.exploitability() == pytest.approx(
        os_expl.exploitability(game, peer.average_policy()), rel=rel)


def test_leduc_infosets_are_openspiels_suit_isomorphic_ones():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as os_policy

    plain = os_policy.TabularPolicy(pyspiel.load_game("leduc_poker"))
    merged = os_policy.TabularPolicy(pyspiel.load_game("leduc_poker", {"suit_isomorphism": True}))
    assert len(plain.state_lookup) == 936
    assert len(merged.state_lookup) == len(cfr.infosets("leduc_holdem")) == 288


# ------------------------------------------------------------------------------ convergence
@pytest.fixture(scope="module")
def kuhn_cfr_plus():
    return cfr.solve("kuhn_poker", "cfr+", iterations=1000)


def test_kuhn_cfr_plus_reaches_the_equilibrium(kuhn_cfr_plus):
    r = kuhn_cfr_plus
    assert r.exploitability < 1e-4
    assert r.game_value == pytest.approx(KUHN_VALUE, abs=1e-3)
    assert cfr.exploitability("kuhn_poker", r) == pytest.approx(r.exploitability)
    bet = {k: float(v[kp.BET]) for k, v in r.average_policy.items()}  # bet or call
    tol = 0.01
    # Kuhn's family: the first player bluffs J with alpha in [0, 1/3], bets K with 3 alpha,
    # never bets Q, and facing pass-bet calls with Q alpha + 1/3, never with J.
    alpha = bet["p0:J:"]
    assert -tol <= alpha <= 1 / 3 + tol
    assert bet["p0:K:"] == pytest.approx(3 * alpha, abs=tol)
    assert bet["p0:Q:"] == pytest.approx(0, abs=tol)
    assert bet["p0:Q:pb"] == pytest.approx(alpha + 1 / 3, abs=tol)
    assert bet["p0:J:pb"] == pytest.approx(0, abs=tol)
    if 1 - 3 * alpha > tol:  # K checks sometimes: then it calls
        assert bet["p0:K:pb"] == pytest.approx(1, abs=tol)
    # The second player's strategy is unique: K calls and bets, Q calls 1/3 and checks,
    # J folds and bluffs 1/3.
    want = {"p1:K:b": 1, "p1:K:p": 1, "p1:Q:b": 1 / 3, "p1:Q:p": 0, "p1:J:b": 0, "p1:J:p": 1 / 3}
    for key, prob in want.items():
        assert bet[key] == pytest.approx(prob, abs=tol), key


def test_leduc_cfr_plus_reaches_one_milli_chip():
    # CFR+ crosses 1e-3 between 400 and 500 iterations (alternating updates, float32).
    r = cfr.solve("leduc_holdem", "cfr+", iterations=600, history_every=200)
    assert r.exploitability < 1e-3
    assert r.game_value == pytest.approx(LEDUC_VALUE, abs=2e-3)
    assert len(r.history) == 3 and r.history[-1, 0] == 600


@pytest.mark.parametrize("env_id,iterations", [("kuhn_poker", 300), ("leduc_holdem", 150)])
@pytest.mark.parametrize("algorithm", cfr.ALGORITHMS)
def test_every_algorithm_decreases_exploitability(env_id, iterations, algorithm):
    # Not monotone iteration by iteration (CFR+ is not), so compare a decade apart.
    solver = cfr.Solver(env_id, algorithm)
    solver.run(iterations // 10)
    early = solver.exploitability()
    solver.run(iterations - iterations // 10)
    late = solver.exploitability()
    assert late < early / 4 < cfr.exploitability(env_id, "uniform") / 4


def test_simultaneous_updates_converge_too():
    solver = cfr.Solver("kuhn_poker", "cfr+", alternating=False)
    solver.run(100)
    early = solver.exploitability()
    solver.run(900)
    assert solver.exploitability() < min(early / 4, 5e-3)


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_solver_continues_where_it_stopped(precision):
    a = cfr.Solver("kuhn_poker", "dcfr", precision=precision)
    a.run(40)
    a.run(60)
    b = cfr.Solver("kuhn_poker", "dcfr", precision=precision)
    b.run(100)
    assert a.iteration == b.iteration == 100
    np.testing.assert_allclose(a.average_policy_array(), b.average_policy_array(), atol=1e-6)
    assert a.exploitability() == pytest.approx(b.exploitability(), rel=1e-5)


# ----------------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("bad", ["hex", "kuhn", None])
def test_unknown_env_ids_raise(bad):
    for call in (lambda: cfr.solve(bad, iterations=1), lambda: cfr.exploitability(bad, "uniform")):
        with pytest.raises(ValueError, match=r"unknown env id .*known: kuhn_poker, leduc_holdem"):
            call()


def test_unknown_algorithm_raises():
    with pytest.raises(ValueError, match=r"'cfr\+\+'.*known: cfr, cfr\+, dcfr"):
        cfr.solve("kuhn_poker", "cfr++", iterations=1)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="iterations"):
        cfr.solve("kuhn_poker", iterations=0)
    with pytest.raises(ValueError, match="history_every"):
        cfr.solve("kuhn_poker", iterations=10, history_every=-1)
    with pytest.raises(ValueError, match="iterations"):
        cfr.Solver("kuhn_poker").run(-5)
    with pytest.raises(ValueError, match="alpha"):
        cfr.solve("kuhn_poker", "cfr+", iterations=1, alpha=2.0)
    with pytest.raises(ValueError, match="shape"):
        cfr.exploitability("kuhn_poker", np.ones((3, 2)))
    with pytest.raises(ValueError, match="missing"):
        cfr.exploitability("kuhn_poker", {"p0:J:": [1, 0]})
    with pytest.raises(ValueError, match="policy"):
        cfr.exploitability("kuhn_poker", "random")
    with pytest.raises(ValueError, match="precision 'float16'"):
        cfr.Solver("kuhn_poker", precision="float16")
