"""Sums along a diagonal, histograms and searches in sorted sequences (torch.trace, histc,
bucketize, searchsorted): outputs whose shape follows from arguments the bindings do not read
(bins, the sequence), so the caller passes out= (runtime/sim/src/opapi/families/counting.cpp)."""

from gen.families.model import Family, Op

COUNTING = Family(
    "counting", "PlanCounting",
    # Positions are INT64 (INT32 with out_int32, which the engine converts to).
    ops=(Op("trace", result_dtype=True), Op("histc", exact=True), Op("bucketize", dtypes={"out": "INT64"}, exact=True),
         Op("searchsorted", dtypes={"out": "INT64"}, exact=True), Op("bincount", result_dtype=True),
         Op("isin", dtypes={"out": "BOOL"})),
    output_shape="given",
    # isin: whether the scalar `element` is among self's values (the test elements).
    roles=("self", "sequence", "bins", "min", "max", "out_int32", "right", "sorter", "out", "weights", "minlength",
           "element", "assume_unique", "invert"),
    required=("self", "out"),
    doc="the trace of a matrix; histc's counts of self in bins equal parts of [min, max] (self's own range "
        "when min == max); bucketize's and searchsorted's positions of values in a sorted sequence (the "
        "innermost rows of an N-d one, through a sorter's order), left or right of equal values; bincount's "
        "occurrences (or summed weights) of each non-negative integer; isin of one scalar")
