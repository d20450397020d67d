"""Random numbers from one counter-based generator (Philox 4x32-10) keyed by the pages' seed and
offset (runtime/sim/src/opapi/families/random.cpp): element i of a result draws from counter
(i, offset) under key seed, so one seed and offset give one result on any threads and strides.
seed_tensor, offset_tensor: the *Tensor pages' one-element device tensors (the offset int then
adds to offsetTensor's value); mask: a dropout's bit mask (UINT8, bit i of byte i / 8 keeps
element i), read by do_mask and dropout_grad, written by gen_mask and dropout (mask_out)."""

from gen.families.model import Family, Op

RANDOM = Family(
    "random", "PlanRandom",
    ops=(Op("normal", shape="given"), "uniform", "random", "bernoulli",
         Op("multinomial", shape="given", dtypes={"out": "INT64"}), Op("randperm", shape="given"),
         Op("gen_mask", shape="given", dtypes={"out": "UINT8"}), "do_mask", Op("dropout", shapes={"mask_out": "given"}),
         "dropout_grad", "rrelu", "exponential"),
    # exponential: -ln(1 - u) / lambd into out, n (when bound) its element count.
    roles=("self", "mean", "std", "from", "to", "prob", "seed", "offset", "seed_tensor", "offset_tensor",
           "num_samples", "replacement", "n", "shape", "mask", "noise_shape", "lower", "upper", "training", "noise",
           "scale", "out", "mask_out", "lambd"),
    required=(),
    fixed_dtypes={"mask_out": "UINT8"},
    doc="normal, uniform, random integers, bernoulli draws, multinomial samples, permutations, dropout masks "
        "and their application, randomized leaky relu, exponential draws: every value from Philox 4x32-10 at counter (element, "
        "offset) under key seed")
