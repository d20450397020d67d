"""Activations that split their input in two along a dimension (GLU and its gated kin: a the first
half, b the second) or weight it per channel (PReLU), and their backwards
(runtime/sim/src/opapi/families/activation.cpp). glu: a * sigmoid(b); swiglu: silu(a) * b;
gelu_mul: gelu(a) * b along the last dimension (approximate "none" or "tanh"); geglu: gelu of
one half times the other, with the gelu as a second output (approximate 0 none, 1 tanh); prelu: x above 0,
weight[c] * x at or below (c: dimension 1, or one weight for every element); log_sigmoid:
aclnnLogSigmoidForward's out, and aten's CPU buffer exp(-|x|) in a buffer of self's shape."""

from gen.families.model import Family, Op

ACTIVATION = Family(
    "activation", "PlanActivation",
    # The gradient's shape is self's halved along dim: dim varies only with the shapes.
    ops=(Op("glu", shape="given"), Op("glu_backward", shape_arguments=("dim",)), Op("swiglu", shape="given"),
         Op("swiglu_grad", shape_arguments=("dim",)), Op("gelu_mul", shape="given"), "prelu",
         Op("prelu_backward", shapes={"grad_weight": "given"}), "log_sigmoid", Op("geglu", shape="given"),
         Op("geglu_backward", shape_arguments=("dim",)), Op("clipped_swiglu", shape="given"),
         Op("clipped_swiglu_grad", shape_arguments=("dim",)), Op("situ_glu", shape="given"),
         Op("situ_glu_grad", shape_arguments=("dim",)), Op("fatrelu_mul", shape="given"),
         Op("swiglu_group", shape="given"),
         Op("swiglu_group_grad", shapes={"grad_weight": "given"}, dtypes={"grad_weight": "FLOAT"})),
    # geglu: gelu of one half (the left with activate_left, else the right) times the other,
    # out_gelu the gelu; its backward reads the forward's gelu (the `gelu` role).
    # clipped_swiglu: the halves clamped by limit, silu with alpha times (B + bias), halves
    # interleaved or not, only the rows of dim's leading dimensions group_index sums to.
    # swiglu_group_grad: swiglu_group's gradient (the gradient times the token's weight), and the weight's
    # gradient from the forward's output before the weight (y_origin).
    roles=("self", "grad_out", "dim", "weight", "approximate", "out", "grad_weight", "buffer", "activate_left",
           "gelu", "out_gelu", "group_index", "alpha", "limit", "bias", "interleaved", "clamp_mode", "beta",
           "linear_beta", "y_origin"),
    required=("self", "out"),
    doc="GLU, SwiGLU and GELU-mul (one half of the input along a dimension gating the other) and PReLU "
        "(a weight per channel), with their backwards; computed in float (double for DOUBLE), PReLU's "
        "weight gradient summed in double")
