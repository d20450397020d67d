"""The simulator's kernel families: what a semantics file may name besides an elementwise kernel.

Each family listed here has its engine; a family joins the table with its engine, not before.

A semantics file says `family = "reduce"`, `op = "sum"` and which of the page's parameters plays
each of the family's roles (`roles = { dim = "dims", keepdim = "keepDims" }`; a role left out is
the page's parameter of the same name, if there is one). The simulator has one engine per family
(runtime/sim/src/opapi/families/<module>.cpp), strided, broadcasting and multithreaded; its
generated spec names the family's planner, the op and the parameter index of every role.

This package is the one home of the families' names, ops, roles and options: one module per
family (named as its engine's file; optim.py and quant.py hold the families their engine's file
holds) with its `Family` row and an `Op` row per op that differs from the family's defaults (its
outputs' shape rules and fixed dtypes, exactness, shape variations and arguments); model.py holds
the types, the output-shape rules (OUTPUT_SHAPES) and what a row says about one op. A row that names
a role, a rule or a dtype its family lacks is refused when the table is built. The semantics reader
checks files against it, the simulator's emitter writes each API's FamilySpec from it,
gen/api/python.py plans outputs by its rules, and gen/emit/enums.py renders it as the C++
enumerations the planners and the bindings read (`include/aclnn_sim/families.h`,
`include/aclnn_bindgen/output_shapes.h`), so that the two sides cannot disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from gen.families.model import (CONV_RULE_ROLES, MAX_OPTIONS, MAX_ROLES, OUTPUT_SHAPE, OUTPUT_SHAPES,
                                POOL_WINDOW_ROLES, VARIATION_KINDS, Family, Op, OutputShape, Variation,
                                data_dependent, dtype_source, exact, fixed_dtype, output_shape, result_dtype,
                                role_dtype_source, rules, shape_arguments, shape_variations)
from gen.families.reduce import REDUCE
from gen.families.cumulative import CUMULATIVE
from gen.families.index import INDEX
from gen.families.select import SELECT
from gen.families.dynamic import DYNAMIC
from gen.families.advanced import ADVANCED
from gen.families.shape import SHAPE
from gen.families.softmax import SOFTMAX
from gen.families.norm import NORM
from gen.families.norm_grad import NORM_GRAD
from gen.families.sync_batch_norm import SYNC_BATCH_NORM
from gen.families.loss import LOSS
from gen.families.matmul import MATMUL
from gen.families.conv import CONV
from gen.families.pool import POOL
from gen.families.foreach import FOREACH
from gen.families.optim import OPTIM, AMP
from gen.families.creation import CREATION
from gen.families.counting import COUNTING
from gen.families.random import RANDOM
from gen.families.order import ORDER
from gen.families.linalg import LINALG
from gen.families.activation import ACTIVATION
from gen.families.embedding import EMBEDDING
from gen.families.rotary import ROTARY
from gen.families.masked_softmax import MASKED_SOFTMAX
from gen.families.margin import MARGIN
from gen.families.adam import ADAM
from gen.families.embedding_bag import EMBEDDING_BAG
from gen.families.affine_grid import AFFINE_GRID
from gen.families.chunk_cat import CHUNK_CAT
from gen.families.attention import ATTENTION
from gen.families.moe import MOE
from gen.families.quant import QUANT, NORM_QUANT, WEIGHT_QUANT_MATMUL
from gen.families.rnn import RNN
from gen.families.quant_matmul import QUANT_MATMUL
from gen.families.einsum import EINSUM
from gen.families.top_k_top_p import TOP_K_TOP_P
from gen.families.resample import RESAMPLE
from gen.families.grid_sample import GRID_SAMPLE
from gen.families.grouped_bias_add_grad import GROUPED_BIAS_ADD_GRAD
from gen.families.sign_bits import SIGN_BITS
from gen.families.as_strided import AS_STRIDED
from gen.families.lora import LORA
from gen.families.sinkhorn import SINKHORN
from gen.families.ema_adam import EMA_ADAM
from gen.families.scale import SCALE
from gen.families.chamfer import CHAMFER
from gen.families.lstm_cell import LSTM_CELL
from gen.families.ctc import CTC
from gen.families.vocab_parallel import VOCAB_PARALLEL
from gen.families.sample_affine import SAMPLE_AFFINE

if TYPE_CHECKING:
    from gen.ir import OpSemantics

FAMILIES: tuple[Family, ...] = (
    REDUCE, CUMULATIVE, INDEX, SELECT, DYNAMIC, ADVANCED, SHAPE, SOFTMAX, NORM, NORM_GRAD, SYNC_BATCH_NORM,
    LOSS, MATMUL, CONV, POOL, FOREACH, OPTIM, AMP, CREATION, COUNTING, RANDOM, ORDER, LINALG, ACTIVATION,
    EMBEDDING, ROTARY, MASKED_SOFTMAX, MARGIN, ADAM, EMBEDDING_BAG, AFFINE_GRID, CHUNK_CAT, ATTENTION, MOE,
    QUANT, NORM_QUANT, WEIGHT_QUANT_MATMUL, RNN, QUANT_MATMUL, EINSUM, TOP_K_TOP_P, RESAMPLE, GRID_SAMPLE,
    GROUPED_BIAS_ADD_GRAD, SIGN_BITS, AS_STRIDED, LORA, SINKHORN, EMA_ADAM, SCALE, CHAMFER, LSTM_CELL, CTC,
    VOCAB_PARALLEL, SAMPLE_AFFINE,
)

BY_NAME = {f.name: f for f in FAMILIES}


def bind_roles(semantics: "OpSemantics", params: "Sequence[str]") -> tuple[dict[str, str], str]:
    """The page's parameter playing each role of the semantics' family (a role the file leaves
    out is the parameter of the same name, if the page has one), or {} and why the roles cannot
    be bound (a role bound to a parameter the page does not have, a required role unbound)."""
    known = family(semantics.family)
    assert known is not None, f"{semantics.source}: the semantics reader admits only known families"
    bound: dict[str, str] = {}
    for role in known.roles:
        param = semantics.role(role)
        if param is not None and param not in params:
            return {}, f"{semantics.source}: role {role} of family {known.name} is {param}, which the page does not have"
        param = param if param is not None else (role if role in params else None)
        if param is None and role in known.required:
            return {}, f"no parameter of the page plays role {role} of family {known.name}"
        if param is not None:
            bound[role] = param
    return bound, ""


def applies_kernel(semantics: "OpSemantics") -> bool:
    """Whether the semantics' family op applies the file's elementwise kernel (foreach's map)."""
    known = family(semantics.family) if semantics.family else None
    row = known.op(semantics.op) if known is not None else None
    return row is not None and row.kernel


def family(name: str) -> Optional[Family]:
    return BY_NAME.get(name)
