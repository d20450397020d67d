"""The activation family (runtime/sim/src/opapi/families/activation.cpp): its row of gen.families."""

from gen.families.model import Family

# Activations that split their input in two along a dimension (GLU and its gated kin: a the first
# half, b the second) or weight it per channel (PReLU), and their backwards
# (runtime/sim/src/opapi/families/activation.cpp). glu: a * sigmoid(b); swiglu: silu(a) * b;
# gelu_mul: gelu(a) * b along the last dimension (approximate "none" or "tanh"); geglu: gelu of
# one half times the other, with the gelu as a second output (approximate 0 none, 1 tanh); prelu: x above 0,
# weight[c] * x at or below (c: dimension 1, or one weight for every element); log_sigmoid:
# aclnnLogSigmoidForward's out, and aten's CPU buffer exp(-|x|) in a buffer of self's shape.
ACTIVATION = Family(
    "activation", "PlanActivation",
    ops=("glu", "glu_backward", "swiglu", "swiglu_grad", "gelu_mul", "prelu", "prelu_backward", "log_sigmoid",
         "geglu", "geglu_backward", "clipped_swiglu", "clipped_swiglu_grad", "situ_glu", "situ_glu_grad",
         "fatrelu_mul", "swiglu_group"),
    # geglu: gelu of one half (the left with activate_left, else the right) times the other,
    # out_gelu the gelu; its backward reads the forward's gelu (the `gelu` role).
    # clipped_swiglu: the halves clamped by limit, silu with alpha times (B + bias), halves
    # interleaved or not, only the rows of dim's leading dimensions group_index sums to.
    roles=("self", "grad_out", "dim", "weight", "approximate", "out", "grad_weight", "buffer", "activate_left",
           "gelu", "out_gelu", "group_index", "alpha", "limit", "bias", "interleaved", "clamp_mode", "beta",
           "linear_beta"),
    required=("self", "out"),
    op_output_shapes=(("glu", "*", "given"), ("swiglu", "*", "given"), ("gelu_mul", "*", "given"), ("geglu", "*", "given"),
                      ("clipped_swiglu", "*", "given"), ("situ_glu", "*", "given"), ("fatrelu_mul", "*", "given"), ("swiglu_group", "*", "given"),
                      ("prelu_backward", "grad_weight", "given")),
    # The gradient's shape is self's halved along dim: dim varies only with the shapes.
    shape_arguments=(("glu_backward", "dim"), ("swiglu_grad", "dim"), ("geglu_backward", "dim"),
                     ("clipped_swiglu_grad", "dim"), ("situ_glu_grad", "dim")),
    doc="GLU, SwiGLU and GELU-mul (one half of the input along a dimension gating the other) and PReLU "
        "(a weight per channel), with their backwards; computed in float (double for DOUBLE), PReLU's "
        "weight gradient summed in double")
