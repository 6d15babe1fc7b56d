"""find_groups: maximal cliques of the non-significance graph, compact letters, rank ranges
(SPEC "Groups that cannot be told apart"; Ackerman, Farchi, Raz & Toledo 2025, arXiv:2501.18243, §5.1)."""

from __future__ import annotations

import itertools
import re
import time

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ranking._groups import MAX_CLIQUES, Groups, find_groups, letter_tokens


def _pairs(rows: list[tuple[str, str, bool, bool]], p: float = 0.5) -> pd.DataFrame:
    """A pairwise table: (system_a, system_b, significant, a_better) per pair."""
    table = pd.DataFrame(
        [(a, b, 0.001 if sig else p, sig, better) for a, b, sig, better in rows],
        columns=["system_a", "system_b", "pvalue_adj", "significant", "a_better"])
    return table.astype({"pvalue_adj": float, "significant": bool, "a_better": bool})


def _significant_set(pairs: pd.DataFrame) -> set[frozenset[str]]:
    return {frozenset((a, b)) for a, b, sig in
            pairs[["system_a", "system_b", "significant"]].itertuples(index=False) if sig}


def _assert_letter_rules(systems: list[str], pairs: pd.DataFrame, letters: dict[str, str]) -> None:
    """Piepho's (2004) letter display: every system has a letter; a pair shares a letter iff
    it is not significantly different (uncompared pairs count as different, as today); and
    no letter is redundant (removing any one breaks a rule)."""
    compared = {frozenset((a, b)) for a, b in pairs[["system_a", "system_b"]].itertuples(index=False)}
    sig = _significant_set(pairs)
    sets = {s: set(re.findall(r"[A-Za-z]\d*", letters[s])) for s in systems}  # "a", "a1"
    assert all(sets[s] for s in systems)
    for a, b in itertools.combinations(systems, 2):
        calm = frozenset((a, b)) in compared and frozenset((a, b)) not in sig
        assert bool(sets[a] & sets[b]) == calm, (a, b, letters)
    tokens = set().union(*sets.values())
    for t in tokens:
        rest = {s: v - {t} for s, v in sets.items()}
        still_ok = all(rest[s] for s in systems) and all(
            bool(rest[a] & rest[b]) == bool(sets[a] & sets[b])
            for a, b in itertools.combinations(systems, 2))
        assert not still_ok, f"letter {t!r} is redundant: {letters}"


def _letters_from_all_cliques(systems: list[str], quality: list[float],
                              pairs: pd.DataFrame) -> dict[str, str]:
    """Today's letters (before issue #19): one letter per maximal clique of networkx's
    find_cliques, cliques ordered by best member, mean quality, then names."""
    score = dict(zip(systems, quality, strict=True))
    g = nx.Graph()
    g.add_nodes_from(systems)
    g.add_edges_from((a, b) for a, b, sig in
                     pairs[["system_a", "system_b", "significant"]].itertuples(index=False)
                     if not sig)
    ordered = sorted((tuple(sorted(c, key=lambda s: (-score[s], s))) for c in nx.find_cliques(g)),
                     key=lambda c: (-score[c[0]], -float(np.mean([score[s] for s in c])), c))
    letters: dict[str, list[str]] = {s: [] for s in systems}
    for token, clique in zip(letter_tokens(len(ordered)), ordered, strict=True):
        for s in clique:
            letters[s].append(token)
    sep = "" if len(ordered) <= 52 else " "
    return {s: sep.join(v) for s, v in letters.items()}


def _three() -> Groups:
    # A > C significant; A ~ B and B ~ C not significant (means A > B > C).
    pairs = _pairs([("A", "B", False, True), ("A", "C", True, True), ("B", "C", False, True)])
    return find_groups(["A", "B", "C"], [0.9, 0.8, 0.7], pairs)


def test_hand_built_three_systems() -> None:
    g = _three()
    assert g.complete
    assert g.cliques == (("A", "B"), ("B", "C"))  # best clique first, members best first
    assert g.letters == {"A": "a", "B": "ab", "C": "b"}
    # best rank = 1 + #significantly better; worst rank = #not significantly worse (incl. itself)
    assert g.rank_low == {"A": 1, "B": 1, "C": 2}
    assert g.rank_high == {"A": 2, "B": 3, "C": 3}
    assert set(g.graph.nodes) == {"A", "B", "C"}
    assert {frozenset(e) for e in g.graph.edges} == {frozenset("AB"), frozenset("BC")}
    assert g.graph.edges["A", "B"]["pvalue_adj"] == 0.5
    assert g.min_size == 2


def test_direction_of_significance_comes_from_a_better() -> None:
    # same graph, but the significant pair is written (C, A) with a_better False
    pairs = _pairs([("A", "B", False, True), ("C", "A", True, False), ("B", "C", False, True)])
    g = find_groups(["A", "B", "C"], [0.9, 0.8, 0.7], pairs)
    assert g.rank_low == {"A": 1, "B": 1, "C": 2}
    assert g.rank_high == {"A": 2, "B": 3, "C": 3}


def test_all_significant_gives_singletons() -> None:
    systems = ["A", "B", "C", "D"]
    pairs = _pairs([(a, b, True, True) for a, b in itertools.combinations(systems, 2)])
    g = find_groups(systems, [4, 3, 2, 1], pairs)
    assert g.cliques == ()  # no clique of size ≥ 2
    assert g.letters == {"A": "a", "B": "b", "C": "c", "D": "d"}  # isolated systems: own letter
    assert g.rank_low == {"A": 1, "B": 2, "C": 3, "D": 4}
    assert g.rank_high == g.rank_low
    g1 = find_groups(systems, [4, 3, 2, 1], pairs, min_size=1)
    assert g1.cliques == (("A",), ("B",), ("C",), ("D",))


def test_none_significant_gives_one_group() -> None:
    systems = ["A", "B", "C"]
    pairs = _pairs([(a, b, False, True) for a, b in itertools.combinations(systems, 2)])
    g = find_groups(systems, [1.0, 3.0, 2.0], pairs)
    assert g.cliques == (("B", "C", "A"),)  # members in descending quality
    assert g.letters == {"A": "a", "B": "a", "C": "a"}
    assert g.rank_low == {"A": 1, "B": 1, "C": 1}
    assert g.rank_high == {"A": 3, "B": 3, "C": 3}


def test_uncompared_system_is_isolated() -> None:
    # compare="first": only A-B and A-C tested; D appears in no pair
    pairs = _pairs([("A", "B", False, True), ("A", "C", True, True)])
    g = find_groups(["A", "B", "C", "D"], [4, 3, 2, 1], pairs)
    assert g.cliques == (("A", "B"),)
    assert g.letters["D"] and g.letters["D"] not in (g.letters["A"] + g.letters["B"])
    assert g.rank_low["D"] == 1 and g.rank_high["D"] == 4


def test_min_size_filters_cliques_not_letters() -> None:
    pairs = _pairs([("A", "B", False, True), ("A", "C", True, True), ("B", "C", True, True)])
    g = find_groups(["A", "B", "C"], [3, 2, 1], pairs, min_size=3)
    assert g.cliques == ()
    assert g.letters == {"A": "a", "B": "a", "C": "b"}
    with pytest.raises(ValueError, match="min_size"):
        find_groups(["A", "B", "C"], [3, 2, 1], pairs, min_size=0)


def test_quality_length_must_match() -> None:
    with pytest.raises(ValueError):
        find_groups(["A", "B"], [1.0], _pairs([("A", "B", False, True)]))


def test_letter_tokens() -> None:
    t = letter_tokens(60)
    assert t[:3] == ["a", "b", "c"] and t[25] == "z" and t[26] == "A" and t[51] == "Z"
    assert t[52] == "a1" and t[59] == "h1"
    assert len(set(letter_tokens(200))) == 200


def _perfect_matching_complement(k: int) -> tuple[list[str], pd.DataFrame]:
    """2k systems where only (s0, s1), (s2, s3), … are significant: the non-significance
    graph is the complement of a perfect matching, the cocktail-party graph, whose maximal
    cliques pick one vertex from every matched pair: 2^k of them (Moon & Moser 1965)."""
    systems = [f"s{i:02d}" for i in range(2 * k)]
    rows = [(a, b, j == i + 1 and i % 2 == 0, True)
            for (i, a), (j, b) in itertools.combinations(enumerate(systems), 2)]
    return systems, _pairs(rows)


def test_clique_guard_stops_quickly() -> None:
    systems, pairs = _perfect_matching_complement(20)  # 2^20 ≈ 1e6 maximal cliques
    quality = list(range(len(systems), 0, -1))
    start = time.process_time()
    g = find_groups(systems, quality, pairs, max_cliques=100)
    assert time.process_time() - start < 5.0  # stops after ~101 cliques, not 1e6
    assert not g.complete and g.cliques_truncated
    # issue #19: the first 100 cliques are listed (those of the best systems) with a note,
    # instead of none; letters no longer depend on enumerating cliques, so they are given
    assert len(g.cliques) == 100 and g.n_cliques == 101
    assert all(c[0] == "s00" for c in g.cliques)  # best-ranked system's cliques first
    assert g.notes and "100" in g.notes[0]
    _assert_letter_rules(systems, pairs, g.letters)
    # rank ranges do not need cliques and are still given
    assert g.rank_low["s00"] == 1 and g.rank_low["s01"] == 2
    assert g.rank_high["s00"] == 39 and g.rank_high["s01"] == 40


def test_clique_guard_counts_exactly() -> None:
    # k = 7: exactly 2^7 = 128 maximal cliques
    systems, pairs = _perfect_matching_complement(7)
    quality = list(range(len(systems), 0, -1))
    g = find_groups(systems, quality, pairs, max_cliques=128)
    assert g.complete and len(g.cliques) == 128
    assert all(len(c) == 7 for c in g.cliques)
    assert not find_groups(systems, quality, pairs, max_cliques=127).complete
    assert MAX_CLIQUES >= 128


# ---------------------------------------------------------------- properties


@st.composite
def significance_tables(draw: st.DrawFn) -> tuple[list[str], list[float], pd.DataFrame]:
    n = draw(st.integers(1, 8))
    systems = [f"s{i}" for i in range(n)]
    quality = draw(st.lists(st.integers(0, 5).map(float), min_size=n, max_size=n))
    rows = []
    for i, j in itertools.combinations(range(n), 2):
        sig = draw(st.booleans())
        # a significant difference goes the way of the means (ties: either way)
        better = quality[i] > quality[j] or (quality[i] == quality[j] and draw(st.booleans()))
        rows.append((systems[i], systems[j], sig, better))
    return systems, quality, _pairs(rows)


@pytest.mark.slow
@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(case=significance_tables())
def test_groups_properties(case: tuple[list[str], list[float], pd.DataFrame]) -> None:
    systems, quality, pairs = case
    g = find_groups(systems, quality, pairs, min_size=1)
    sig = {frozenset((a, b)) for a, b, s in
           pairs[["system_a", "system_b", "significant"]].itertuples(index=False) if s}
    calm = nx.Graph()
    calm.add_nodes_from(systems)
    calm.add_edges_from(p for p in itertools.combinations(systems, 2) if frozenset(p) not in sig)
    expected = {frozenset(c) for c in nx.find_cliques(calm)}
    # cliques: exactly the maximal cliques of the non-significance graph, best first
    assert {frozenset(c) for c in g.cliques} == expected
    score = dict(zip(systems, quality, strict=True))
    for c in g.cliques:
        assert [score[s] for s in c] == sorted((score[s] for s in c), reverse=True)
    tops = [score[c[0]] for c in g.cliques]
    assert tops == sorted(tops, reverse=True)
    # compact letters: two systems share a letter iff they are not significantly different
    for a, b in itertools.combinations(systems, 2):
        share = bool(set(g.letters[a]) & set(g.letters[b]))
        assert share == (frozenset((a, b)) not in sig), (a, b, g.letters)
    assert all(g.letters[s] for s in systems)
    # rank ranges: 1 ≤ low ≤ high ≤ n
    n = len(systems)
    for s in systems:
        assert 1 <= g.rank_low[s] <= g.rank_high[s] <= n


def test_tied_members_have_a_canonical_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # networkx documents no order for find_cliques' output (it iterates over sets). Listing
    # the same cliques in another order must not change the groups: ties need a canonical
    # order (e.g. by system name, as the leaderboard table sorts tied systems).
    systems = ["A", "B", "C", "D", "E"]
    sig = {("A", "E"), ("B", "E")}
    rows = [(a, b, (a, b) in sig, True) for a, b in itertools.combinations(systems, 2)]
    quality = [2.0, 2.0, 1.0, 1.0, 0.0]  # A and B tie, C and D tie
    base = find_groups(systems, quality, _pairs(rows))
    original = nx.find_cliques
    monkeypatch.setattr(nx, "find_cliques", lambda g: [c[::-1] for c in original(g)][::-1])
    other = find_groups(systems, quality, _pairs(rows))
    assert [set(c) for c in base.cliques] == [set(c) for c in other.cliques]  # same groups
    assert base.cliques == other.cliques  # fails: ('B', 'A', 'D', 'C') vs ('A', 'B', 'C', 'D')
    assert base.cliques[0] == ("A", "B", "C", "D")


def test_letters_follow_cliques_in_order() -> None:
    # four systems in a chain of non-significance A~B~C~D, everything else significant
    sig = {("A", "C"), ("A", "D"), ("B", "D")}
    rows = [(a, b, (a, b) in sig, True) for a, b in itertools.combinations("ABCD", 2)]
    g = find_groups(list("ABCD"), [4, 3, 2, 1], _pairs(rows))
    assert g.cliques == (("A", "B"), ("B", "C"), ("C", "D"))
    assert g.letters == {"A": "a", "B": "ab", "C": "bc", "D": "c"}
    assert g.rank_low == {"A": 1, "B": 1, "C": 2, "D": 3}
    assert g.rank_high == {"A": 2, "B": 3, "C": 4, "D": 4}


def test_many_groups_use_separated_tokens() -> None:
    # 60 isolated systems → 60 singleton groups; beyond 52 tokens letters are space-separated
    systems = [f"s{i:02d}" for i in range(60)]
    rows = [(a, b, True, True) for a, b in itertools.combinations(systems, 2)]
    g = find_groups(systems, list(np.arange(60, 0, -1.0)), _pairs(rows))
    assert g.letters["s00"] == "a" and g.letters["s52"] == "a1"
    assert len(set(g.letters.values())) == 60


def test_many_groups_follow_the_letter_rules() -> None:
    # beyond 52 letters, tokens are space-separated: the rules hold token-wise
    systems = [f"s{i:02d}" for i in range(60)]
    rows = [(a, b, True, True) for a, b in itertools.combinations(systems, 2)]
    g = find_groups(systems, list(np.arange(60, 0, -1.0)), _pairs(rows))
    _assert_letter_rules(systems, _pairs(rows), g.letters)


# ------------------------------------------------------- issue #19: polynomial letters


def _interval_case(rng: np.random.Generator, n: int) -> tuple[list[str], list[float],
                                                                pd.DataFrame]:
    """Systems on a line; a pair is significant when the gap in quality exceeds a threshold:
    every system's non-significant partners are consecutive (an interval structure)."""
    quality = np.round(np.sort(rng.normal(size=n))[::-1], 2)
    width = rng.uniform(0.05, 1.0)
    systems = [f"s{i:03d}" for i in range(n)]
    rows = [(systems[i], systems[j], bool(quality[i] - quality[j] > width), True)
            for i, j in itertools.combinations(range(n), 2)]
    return systems, quality.tolist(), _pairs(rows)


@pytest.mark.slow
def test_interval_structures_give_todays_letters_and_cliques() -> None:
    rng = np.random.default_rng(19)
    for n in (2, 5, 12, 40, 80):
        for _ in range(5):
            systems, quality, pairs = _interval_case(rng, n)
            g = find_groups(systems, quality, pairs, min_size=1)
            assert g.letters == _letters_from_all_cliques(systems, quality, pairs)
            _assert_letter_rules(systems, pairs, g.letters)
            assert g.complete and g.n_cliques == len(g.cliques)
            assert {frozenset(c) for c in g.cliques} == {frozenset(c)
                                                         for c in nx.find_cliques(g.graph)}


def test_interval_structure_truncated_listing_keeps_the_exact_count() -> None:
    systems, quality, pairs = _interval_case(np.random.default_rng(3), 60)
    full = find_groups(systems, quality, pairs, min_size=1)
    assert full.n_cliques > 5
    g = find_groups(systems, quality, pairs, min_size=1, max_cliques=5)
    assert g.cliques_truncated and not g.complete and g.cliques == full.cliques[:5]
    assert g.n_cliques == full.n_cliques  # counted without enumeration
    assert g.letters == full.letters and g.rank_low == full.rank_low


@st.composite
def essential_tables(draw: st.DrawFn) -> tuple[list[str], list[float], pd.DataFrame]:
    """Any significance structure on up to 10 systems, with random qualities."""
    n = draw(st.integers(1, 10))
    systems = [f"s{i}" for i in range(n)]
    quality = draw(st.lists(st.integers(0, 4).map(float), min_size=n, max_size=n))
    rows = [(systems[i], systems[j], draw(st.booleans()), quality[i] >= quality[j])
            for i, j in itertools.combinations(range(n), 2)]
    return systems, quality, _pairs(rows)


@pytest.mark.slow
@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(case=essential_tables())
def test_letters_follow_the_rules_and_equal_todays_when_every_clique_is_needed(
        case: tuple[list[str], list[float], pd.DataFrame]) -> None:
    systems, quality, pairs = case
    g = find_groups(systems, quality, pairs)
    _assert_letter_rules(systems, pairs, g.letters)
    # Today's letters (one per maximal clique) are the answer whenever none of those cliques
    # is redundant: every maximal clique then has a pair no other holds, so any cover by
    # maximal cliques — ours — contains them all.
    today = _letters_from_all_cliques(systems, quality, pairs)
    try:
        _assert_letter_rules(systems, pairs, today)
    except AssertionError:
        return  # today's display had a redundant letter (e.g. the octahedron's 8 triangles)
    assert g.letters == today


@pytest.mark.slow
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(case=essential_tables(), seed=st.integers(0, 2**32 - 1))
def test_input_order_and_labels_do_not_matter(
        case: tuple[list[str], list[float], pd.DataFrame], seed: int) -> None:
    systems, quality, pairs = case
    rng = np.random.default_rng(seed)
    base = find_groups(systems, quality, pairs, min_size=1)
    # rows of the pairwise table and the list of systems in another order: same answer
    perm = rng.permutation(len(systems))
    shuffled = find_groups([systems[i] for i in perm], [quality[i] for i in perm],
                           pairs.sample(frac=1.0, random_state=seed % 2**31), min_size=1)
    assert shuffled.letters == base.letters and shuffled.cliques == base.cliques
    assert shuffled.rank_low == base.rank_low and shuffled.rank_high == base.rank_high
    # relabelling systems (same name order) relabels the output
    rename = {s: "t" + s[1:] for s in systems}
    relabelled = find_groups([rename[s] for s in systems], quality,
                             pairs.assign(system_a=pairs["system_a"].map(rename),
                                          system_b=pairs["system_b"].map(rename)), min_size=1)
    assert relabelled.letters == {rename[s]: v for s, v in base.letters.items()}
    assert relabelled.cliques == tuple(tuple(rename[s] for s in c) for c in base.cliques)


def test_octahedron_letters_are_a_smallest_cover() -> None:
    # 6 systems, significant pairs (s0,s1), (s2,s3), (s4,s5): 8 maximal triangles (today: 8
    # letters), but 4 triangles already cover the 12 non-significant pairs, each once
    systems, pairs = _perfect_matching_complement(3)
    g = find_groups(systems, [6, 5, 4, 3, 2, 1], pairs)
    _assert_letter_rules(systems, pairs, g.letters)
    assert len(set("".join(g.letters.values()))) == 4
    assert g.complete and len(g.cliques) == 8  # cliques still lists all of them


def test_thousand_systems_in_an_interval_structure_are_fast() -> None:
    # issue #19: 1,000 systems took 80.7 s for cliques (4,356 maximal cliques) before
    rng = np.random.default_rng(1)
    n = 1000
    quality = np.sort(rng.normal(size=n))[::-1]
    systems = [f"s{i:04d}" for i in range(n)]
    ia, ja = np.triu_indices(n, k=1)
    sig = quality[ia] - quality[ja] > 0.3
    pairs = pd.DataFrame({"system_a": np.asarray(systems, dtype=object)[ia],
                          "system_b": np.asarray(systems, dtype=object)[ja],
                          "pvalue_adj": np.where(sig, 0.001, 0.5), "significant": sig,
                          "a_better": True})
    start = time.process_time()
    g = find_groups(systems, quality.tolist(), pairs)
    assert time.process_time() - start < 10.0  # about 1 s on one core
    assert g.complete and g.n_cliques == len({t for v in g.letters.values() for t in v.split()})
    # letters of an interval structure are intervals: each system's letters are consecutive
    assert g.rank_low[systems[0]] == 1 and g.rank_high[systems[-1]] == n


def test_graph_is_built_on_demand() -> None:
    g = _three()
    assert "graph" not in g.__dict__
    assert {frozenset(e) for e in g.graph.edges} == {frozenset("AB"), frozenset("BC")}
    assert g.graph is g.graph


def test_max_cliques_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="max_cliques: must be at least 0; got -1"):
        find_groups(["A", "B"], [1.0, 0.0], _pairs([("A", "B", False, True)]), max_cliques=-1)
