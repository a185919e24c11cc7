"""The board's geometry (R1, R2): the rim arcs every renderer draws come from the steps."""

from __future__ import annotations

from marrakech.geometry import FACING_LETTERS, RIM, STEP, parse_square, square_name

# R2's table, restated from the rulebook: (edge, squares joined in pairs, loop corner).
R2_TABLE = {
    "N": (["a7-b7", "c7-d7", "e7-f7"], "g7"),
    "E": (["g6-g5", "g4-g3", "g2-g1"], "g7"),
    "S": (["b1-c1", "d1-e1", "f1-g1"], "a1"),
    "W": (["a7-a6", "a5-a4", "a3-a2"], "a1"),
}


def test_r2_rim_is_the_rulebook_table() -> None:
    arcs = {
        (FACING_LETTERS[arc.edges[0]], frozenset(square_name(s) for s in arc.squares))
        for arc in RIM
        if not arc.loop
    }
    expected = {
        (edge, frozenset(pair.split("-")))
        for edge, (pairs, _) in R2_TABLE.items()
        for pair in pairs
    }
    assert arcs == expected
    loops = {
        square_name(arc.squares[0]): "".join(FACING_LETTERS[e] for e in arc.edges)
        for arc in RIM
        if arc.loop
    }
    assert loops == {"g7": "NE", "a1": "SW"}
    assert all(len(arc.edges) == 1 for arc in RIM if not arc.loop)


def test_r2_every_rim_arc_is_a_step_both_ways() -> None:
    for arc in RIM:
        low, high = arc.squares
        for edge in arc.edges:
            for start, end in ((low, high), (high, low)):
                step = STEP[start * 4 + edge]
                assert step.arc and step.square == end, (square_name(start), edge)


def test_r2_corner_a7_leaves_by_two_arcs() -> None:
    a7 = parse_square("a7")
    assert [square_name(STEP[a7 * 4 + e].square) for e in (0, 3)] == ["b7", "a6"]
