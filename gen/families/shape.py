"""The shape family (runtime/sim/src/opapi/families/shape.cpp): its row of gen.families."""

from gen.families.model import Family

SHAPE = Family(
    "shape", "PlanShape",
    ops=("cast", "copy", "cat", "stack", "split", "split_with_size", "permute", "expand", "flip", "roll",
         "tril", "triu", "constant_pad", "repeat", "slice", "flatten", "confusion_transpose", "diag", "diag_flat",
         "diag_part", "slice_assign"),
    # flatten: self's elements row-major as [prod(shape[:dim]), prod(shape[dim:])];
    # confusion_transpose: self permuted by dims then reshaped to size (transpose_first), or
    # reshaped then permuted. diag: torch.diag (a vector's matrix, a matrix's diagonal `diagonal`);
    # diag_flat: torch.diagflat; diag_part: out[i...] = self[i..., i...] (self's rank twice out's);
    # slice_assign: src copied into slice's view of self, in place (out is self).
    roles=("self", "tensors", "dim", "dims", "shifts", "size", "diagonal", "pad", "value", "start",
           "end", "step", "dtype", "out", "transpose_first", "src"),
    required=("out",),
    op_output_shapes=(("cat", "*", "given"), ("stack", "*", "given"), ("split", "*", "given"),
                      ("split_with_size", "*", "given"), ("permute", "*", "given"), ("expand", "*", "given"),
                      ("constant_pad", "*", "given"), ("repeat", "*", "given"), ("slice", "*", "given"),
                      ("flatten", "*", "given"), ("confusion_transpose", "*", "given"), ("diag", "*", "given"),
                      ("diag_flat", "*", "given"), ("diag_part", "*", "given")),
    op_dtype_sources=(("cat", "tensors"), ("stack", "tensors")),
    exact_ops=("*",),
    doc="copies between views, bit for bit within a dtype and converting between dtypes: casts, "
        "broadcasting copies, concatenation, stacking, splitting, permutations, broadcasts, flips, "
        "rolls, triangles, constant padding, repeats, slices (and assignments to them), flattening, reshaped "
        "permutations and diagonals")
