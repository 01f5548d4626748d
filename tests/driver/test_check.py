"""The comparison with the golden reference: element by element as
numpy.allclose, and relative to each output's scale."""

import numpy as np
import pytest

from tessel.driver.check import compare


def test_an_output_far_below_atol_is_still_checked_against_its_scale():
    """Random weights can give outputs of 1e-14, which atol = 1e-4 dwarfs:
    element by element any answer of that size passes; against the output's
    largest magnitude, an answer off by half of it does not."""
    want = np.array([1e-14, -2e-14, 3e-14])
    got = want * 1.5
    check = compare({"y": got}, [want], ["y"], rtol=1e-4, atol=1e-4,
                    against="PyTorch eager")
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4)
    assert not check.passed
    assert check.max_scaled_error == pytest.approx(0.5)
    assert "of the output's largest magnitude 3e-14 (at most 0.001)" in str(check)
    # Within a thousandth of its scale it passes.
    assert compare({"y": want * (1 + 1e-4)}, [want], ["y"], rtol=1e-4, atol=1e-4,
                   against="PyTorch eager").passed


def test_the_scale_rule_uses_the_largest_magnitude_not_each_element():
    """An error of 1e-4 on an element near zero, beside elements of 10: a
    hundred-thousandth of the output's scale, so it passes both rules (the
    element rule by its atol)."""
    want = np.array([10.0, -10.0, 1e-9])
    got = want + np.array([0.0, 0.0, 1e-4])
    check = compare({"y": got}, [want], ["y"], rtol=1e-5, atol=1e-4, against="ref")
    assert check.passed and check.max_scaled_error == pytest.approx(1e-5)
    strict = compare({"y": got}, [want], ["y"], rtol=1e-5, atol=1e-4, against="ref",
                     scale_rtol=1e-6)
    assert not strict.passed and strict.scale_rtol == 1e-6


def test_an_all_zero_reference_is_judged_element_by_element():
    want = np.zeros(4)
    assert compare({"y": want + 1e-6}, [want], ["y"], rtol=0, atol=1e-5,
                   against="ref").passed
    assert not compare({"y": want + 1e-4}, [want], ["y"], rtol=0, atol=1e-5,
                       against="ref").passed
