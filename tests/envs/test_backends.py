"""The two batch engines follow one protocol (BatchEngine) and one set of argument checks."""

from __future__ import annotations

import numpy as np
import pytest

from marrakech import State
from marrakech.envs.batch import PythonBatch

pytest.importorskip("numba")

from marrakech.fast import Batch


@pytest.mark.parametrize("engine", [PythonBatch, Batch])
def test_both_engines_refuse_bad_arguments_alike(engine) -> None:
    with pytest.raises(ValueError, match=r"a batch holds 1\.\.16777216 games, found n=0"):
        engine(0, 4)
    with pytest.raises(ValueError, match=r"found n=2\.0"):
        engine(2.0, 4)
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        engine(2, 5)
    with pytest.raises(TypeError, match=r"expected a RuleSet \(see parse_rules\), found str"):
        engine(2, 4, "bga")
    batch = engine(3, 4)
    with pytest.raises(ValueError, match="reset mask: expected 3 booleans, found shape"):
        batch.reset(np.ones(2, dtype=bool))
    with pytest.raises(ValueError, match="step mask: expected 3 booleans, found shape"):
        batch.step(np.ones(3, dtype=np.int64), mask=[1, 0, 1])
    with pytest.raises(ValueError, match="step: expected 3 integer decision ids"):
        batch.step(np.ones(3))
    with pytest.raises(ValueError, match=r"observations: seats must be 0\.\.3, found 0\.\.4"):
        batch.observations([0, 4, 1])
    with pytest.raises(ValueError, match="observations: expected 3 seats"):
        batch.observations([0, 1])
    with pytest.raises(IndexError, match=r"game index must be 0\.\.2, found 3"):
        batch.state(3)
    assert batch.state(-1) == batch.state(2)
    with pytest.raises(TypeError, match="expected a marrakech State"):
        batch.set_state(0, "d4N")
    with pytest.raises(ValueError, match="set_state: this batch plays 4 players"):
        batch.set_state(0, State.new(3))
