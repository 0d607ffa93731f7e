"""Each family's claims, judged on its quick run, get the verdicts the claims data records.

One test per family (the five family files each had their own copy): every claim is judged,
(where the quick run measures them all) every claim with a measure is measured, and the verdict is the one `reportgen check --record`
wrote for the quick profile.
"""

import pytest
from conftest import judged_claims

from reportgen.judging.vocabulary import catalog
from reportgen.render.wording import words

FAMILIES = ("saturation", "temperature", "gradients", "training", "lm")
MEASURED_IN_FULL = ("saturation", "temperature")  # every claim with a measure is measured on the quick run


@pytest.mark.parametrize("family", FAMILIES)
def test_quick_verdicts_are_the_recorded_ones(family):
    claims = catalog().of_family(family)
    judged = judged_claims(family)
    assert claims and set(judged) == {c.id for c in claims}
    if family in MEASURED_IN_FULL:
        unmeasured = [c.id for c in claims if c.measure and judged[c.id].measurement is None]
        assert not unmeasured, unmeasured
    changed = {c.id: (judged[c.id].verdict, c.expected_for("quick"), words(judged[c.id]).rule)
               for c in claims if judged[c.id].verdict != c.expected_for("quick")}
    assert not changed, changed
