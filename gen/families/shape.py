"""The shape family (runtime/sim/src/opapi/families/shape.cpp): its row of gen.families."""

from gen.families.model import Family, Op

SHAPE = Family(
    "shape", "PlanShape",
    ops=("cast", "copy", Op("cat", shape="given", dtype_source="tensors"),
         Op("stack", shape="given", dtype_source="tensors"), Op("split", shape="given"),
         Op("split_with_size", shape="given"), Op("permute", shape="given"), Op("expand", shape="given"), "flip",
         "roll", "tril", "triu", Op("constant_pad", shape="given"), Op("repeat", shape="given"),
         Op("slice", shape="given"), Op("flatten", shape="given"), Op("confusion_transpose", shape="given"),
         Op("diag", shape="given"), Op("diag_flat", shape="given"), Op("diag_part", shape="given"), "slice_assign"),
    exact=True,
    # flatten: self's elements row-major as [prod(shape[:dim]), prod(shape[dim:])];
    # confusion_transpose: self permuted by dims then reshaped to size (transpose_first), or
    # reshaped then permuted. diag: torch.diag (a vector's matrix, a matrix's diagonal `diagonal`);
    # diag_flat: torch.diagflat; diag_part: out[i...] = self[i..., i...] (self's rank twice out's);
    # slice_assign: src copied into slice's view of self, in place (out is self).
    roles=("self", "tensors", "dim", "dims", "shifts", "size", "diagonal", "pad", "value", "start",
           "end", "step", "dtype", "out", "transpose_first", "src"),
    required=("out",),
    doc="copies between views, bit for bit within a dtype and converting between dtypes: casts, "
        "broadcasting copies, concatenation, stacking, splitting, permutations, broadcasts, flips, "
        "rolls, triangles, constant padding, repeats, slices (and assignments to them), flattening, reshaped "
        "permutations and diagonals")
