"""Order statistics along a dimension or over all elements (torch.kthvalue, median, nanmedian) and
repeat_interleave with its gradient: outputs whose extent follows from arguments the bindings do
not read (k's row, the repeats' sum), so the caller passes out= (runtime/sim/src/opapi/families/order.cpp)."""

from gen.families.model import Family, Op

ORDER = Family(
    "order", "PlanOrder",
    # The selections' outputs are self reduced along dim (every dimension without one), which the
    # bindings shape; repeat_interleave's follow from the counts.
    # outputSize is the extent along dim: the suites vary dim only with it (never alone).
    ops=(Op("kthvalue", shape="reduce", exact=True), Op("median", shape="reduce", exact=True),
         Op("nanmedian", shape="reduce", exact=True), Op("repeat_interleave", exact=True, shape_arguments=("dim",)),
         "repeat_interleave_grad"),
    output_shape="given",
    # dim absent: median/nanmedian over every element (one value, no indices), repeat_interleave of
    # the flattened self; self absent: repeat_interleave of the positions 0..len(repeats)-1.
    roles=("self", "repeats", "output_size", "k", "dim", "keepdim", "out", "indices"),
    required=("out",),
    fixed_dtypes={"indices": "INT64"},
    doc="the k-th smallest value and the (lower) median along a dimension with their indices as aten's CPU "
        "kernels choose them (NaN largest; median: NaN wins, nanmedian: NaN skipped), the median of every "
        "element; repeat_interleave's copies by a count or a count per element, and its gradient's sums")
