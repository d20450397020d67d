"""Phase 1 refuses every rule tests/fuzz/probe_lenient.py breaks on a fixed set of APIs whose pages
state value rules: ranges and sets the parser reads, an error row's "为负数" (aclnnPdist's p,
aclnnLeakyReluBackward's negativeSlope under selfIsResult), an integer that must equal a size
(aclnnRepeatInterleaveInt's outputSize, which the kernel's count check judges in phase 1 too), beside
NULL, rank, dtype and output-shape rules. The whole probe (`python -m tests.fuzz.probe_lenient`) lists
what is left over every page, some of it beyond phase 1 (device data)."""

from __future__ import annotations

from tests.fuzz import probe_lenient
from tests.support import phase1_probe

# Each has an example phase 1 accepts and a value rule (range, set, negative or equal_size) besides.
APIS = ("aclnnPdist", "aclnnLeakyReluBackward", "aclnnRepeatInterleaveInt", "aclnnRepeatInterleaveIntWithDim",
        "aclnnKthvalue", "aclnnTopk", "aclnnIm2col", "aclnnEye", "aclnnAvgPool2d", "aclnnMaxPool2dWithIndices",
        "aclnnLinspace", "aclnnHistc", "aclnnGroupQuant")
_VALUE_KINDS = {"range", "set", "negative", "equal_size"}


def _apis() -> list:
    return probe_lenient.bound_apis(APIS)


def test_phase1_refuses_every_documented_rule_broken_on_these_apis():
    apis = _apis()
    assert sorted(api.name for api, _ in apis) == sorted(APIS)
    made = {api.name: probe_lenient.probes(api, soc) for api, soc in apis}
    # What the test stands on: every API has a value rule to break, beside the others.
    assert all(_VALUE_KINDS & {probe.kind for probe in calls} for calls in made.values()), made
    result = probe_lenient.run(apis)
    assert result.probed == tuple(sorted(APIS)), "an example phase 1 refuses: " + str(set(APIS) - set(result.probed))
    assert [f"{probe.api} [{probe.kind}] {probe.rule}" for probe in result.findings] == []
    assert result.refused == sum(len(calls) - 1 for calls in made.values())


def test_a_negative_value_is_refused_citing_the_pages_error_row():
    # aclnnPdist.md:180, an error row: "p为负数或nan" (the parser's bound at 0; NaN is no bound's).
    negative = [probe for api, soc in _apis() if api.name == "aclnnPdist"
                for probe in probe_lenient.probes(api, soc) if probe.kind == "negative"]
    (status, message), = phase1_probe.statuses([(p.api, list(p.args)) for p in negative])
    assert status == 161002 and "p: -1 is outside [0, inf) (aclnnPdist.md:180)" in message
