"""The kernels' generator mirrors marrakech.splitmix, the pure-Python SplitMix64 that
lets the Python batch play the compiled batch's games."""

from __future__ import annotations

import pytest

from marrakech import splitmix

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from marrakech.fast import kernels  # noqa: E402


@pytest.mark.parametrize("seed", [0, 1, 7, 2**63 + 5, -3])
@pytest.mark.parametrize("salt", [splitmix.SALT_CHANCE, splitmix.SALT_ACTIONS])
def test_seed_streams_match(seed: int, salt: int) -> None:
    compiled = np.zeros(5, dtype=np.uint64)
    kernels.seed_streams(np.uint64(seed % 2**64), np.uint64(salt), compiled)
    assert compiled.tolist() == splitmix.seed_streams(seed, salt, 5)


def test_draws_match_for_many_states_and_ranges() -> None:
    state = splitmix.seed_streams(11, splitmix.SALT_CHANCE, 1)[0]
    for k in [1, 2, 3, 6, 12, 24, 1000] * 50:
        compiled_state, compiled_value = kernels.below(np.uint64(state), k)
        state_after, value = splitmix.below(state, k)
        assert (int(compiled_state), int(compiled_value)) == (state_after, value)
        compiled_state, compiled_unit = kernels.unit(np.uint64(state))
        unit_state, unit = splitmix.unit(state)
        assert (int(compiled_state), float(compiled_unit)) == (unit_state, unit)
        state = state_after


def test_mix64_matches() -> None:
    for z in (0, 1, 2**64 - 1, 0x123456789ABCDEF0):
        assert int(kernels.mix64(np.uint64(z))) == splitmix.mix64(z)
