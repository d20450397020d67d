"""The index family (runtime/sim/src/opapi/families/index.cpp): its row of gen.families."""

from gen.families.model import Family, Op

INDEX = Family(
    "index", "PlanIndex",
    ops=(Op("gather", shape="given", exact=True), Op("index_select", shape="given", exact=True),
         Op("embedding", shape="given", exact=True), Op("take", shape="page", exact=True), "scatter", "scatter_add",
         Op("one_hot", shape="given", dtype_source="on_value", exact=True), Op("topk", shape="given", exact=True),
         Op("sort", exact=True), Op("argsort", dtypes={"indices": "INT64"}, exact=True), Op("gather_v2", shape="given"),
         Op("gather_nd", shape="given"), "scatter_reduce", Op("index_copy", shape_arguments=("dim",)),
         Op("index_add", shape_arguments=("dim",)), Op("sort_with_index", dtypes={"indices": "INT32"}, exact=True),
         "tf_scatter", "scatter_nd"),
    # tf_scatter: TF's scatter_{add,mul,div,max,min} in place, self[index[i...], ...] combined with
    # src[i..., ...] by the `combine` option (1 add, 2 multiply, 3 max, 4 min, 6 divide), or for
    # adds TF's scatter_nd form; scatter_nd: out = self with src's slices at the positions each
    # row of the index's last dimension lists.
    # gather_v2: self's slices along dim at an index of any shape (numpy's take along an axis),
    # per batch of the leading batch_dims dimensions; gather_nd: self at the positions the index's
    # last dimension lists; include_self: whether a scatter_reduce reduction starts from self;
    # sort_with_index: a stable sort whose indices are index's elements moved as self's (NaN first).
    roles=("self", "dim", "index", "src", "value", "reduce", "k", "largest", "descending", "num_classes",
           "on_value", "off_value", "out", "indices", "batch_dims", "negative_index", "include_self", "alpha"),
    required=("self",),
    fixed_dtypes={"indices": "INT64"},
    options=("combine",),
    doc="gathers and scatters along a dimension (indices checked in phase 2, where they live), "
        "n-dimensional gathers, scatters that reduce (sum, product, max, min, mean), index copies and adds, "
        "one-hot encodings, stable sorts (of given indices too) and top-k")
