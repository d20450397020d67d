"""A window of each batch's update written into each tensor of a list
(runtime/sim/src/opapi/families/scatter_list.cpp): aclnnScatterList, which torch_npu.npu_scatter_list and
npu_scatter_list_ reach through op-plugin."""

from gen.families.model import Family, Op

SCATTER_LIST = Family(
    "scatter_list", "PlanScatterList",
    ops=(Op("scatter_list", exact=True),),
    output_shape="given",
    # var is updated in place; the others are read.
    roles=("var", "indice", "updates", "mask", "reduce", "axis"),
    required=("var", "indice", "updates"),
    source="var",
    doc="scatter_list: for each member b of var (B tensors of one shape), unless mask[b] is 0, "
        "var[b][..., indice[b] + l, ...] = updates[b][..., l, ...] along dimension axis - 1 of the member "
        "(axis over updates' rank), for l below updates' size along axis")
