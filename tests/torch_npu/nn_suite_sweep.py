"""Sweeps the nn operators through torch_npu on the simulator, written as torch_npu's own per-op
suites (test/test_network_ops/test_<op>.py) are written: a torch_npu.testing TestCase, inputs from
create_common_tensor([np dtype, npu_format, shape], min, max), a cpu_op_exec and an npu_op_exec that
compute the same thing (float16 inputs computed on the CPU in float32 and cast back), and
assertRtolEqual with its default tolerances; backward through .backward() and .grad; in-place and
out= variants. Not part of `make test`: run by hand from the repository after `make package`:

    .venv/bin/python tests/torch_npu/nn_suite_sweep.py [--soc Ascend910] [--only conv,max_pool] [--verbose] [--task-queue]

Each test prints one line: `pass`, `lax` (assertRtolEqual passes, as the framework's suite would, but
some elements are off by more than 1e-3 (float32) / 1e-2 (float16) relative: a wrong value its
tolerance hides), `WRONG` (assertRtolEqual fails: another value without an error, the worst
outcome), `page` or `torch_npu` (a difference the aclnn page's formula or torch_npu's own host code makes, as
on a device: counted so only where the result equals the CPU computation of that explanation,
host_code.NN_SUITE, on its chips and dtypes), `rounding` (a float16/bfloat16 result that fails against the float32 golden but
passes against the same computation rounded to the 16-bit dtype after each aten operator, as op-plugin's
operators round on a device: the difference lies in the test's golden, not the simulator), `refused` (an exception, with the aclnn API or aclop operator type it
names), `crash` (the
process died or hung: the driver starts a fresh worker at the next test). The run ends with the
tally. Tests run in one worker process with the environment set_env.sh gives and
ASCEND_LAUNCH_BLOCKING=1 (each refusal an exception of its own call); with --task-queue without it, as
torch_npu runs by default (an aclop refusal on its task-queue thread raised by the test's next copy to
the host, synchronisation or operator: the sweep then checks that nothing is lost on the way).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import select
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = ROOT / "generated" / "aclnn" / "_sim" / "toolkit"
HANG = 120  # seconds a single test may run before its worker is taken for hung


# ---------------------------------------------------------------------------------------------------
# The cases. An input is (shape, low, high, kind): kind "f" a floating input that gets a gradient,
# "c" a floating constant (no gradient), "i" an int64 index tensor in [low, high), "p" a positive
# floating constant (variances). Floating inputs take the test's dtype; the first input of rank 4 is
# created in each format of the case (0 NCHW, 2 ND, 3 NC1HWC0), the others in ND.

@dataclass(frozen=True)
class Case:
    name: str
    op: Callable
    shapes: list  # one list of inputs per variant
    dtypes: tuple = ("float32", "float16")
    backward: bool = True
    formats: tuple = (0, 2, 3)
    check: Callable | None = None  # replaces the CPU comparison: returns None or what is wrong
    # The outputs compared (None: all). torch_npu's max pools return indices in a layout of their own
    # on some chips (an INT8 mask of another shape on Ascend910B, INT32 on others): framework suites
    # compare the pooled values only.
    compared: int | None = None


def x4(shape=(2, 3, 4, 5), low=-2, high=2):
    return [[(shape, low, high, "f")]]


ACT_SHAPES = [[((2, 3, 4, 5), -3, 3, "f")], [((7,), -3, 3, "f")], [((), -3, 3, "f")], [((0, 4), -3, 3, "f")],
              [((3, 17, 9), -3, 3, "f")]]


# Cases also run in bfloat16 (where torch_npu takes it: Atlas A2 and later; on Ascend910 op-plugin
# refuses or casts): inputs rounded to bfloat16, the CPU computing in float32 from the rounded values,
# compared in float32 with assertRtolEqual's prec 1e-2 (its bfloat16 path compares at 1e-3, finer than
# bfloat16's own resolution, 7.8e-3, so framework suites pass their own prec).
BF16 = {"relu", "gelu_tanh", "silu", "sigmoid", "tanh", "leaky_relu", "hardswish", "softplus", "softmax_dim1",
        "log_softmax_dim-1", "conv2d", "conv2d_groups2", "linear", "layer_norm", "rms_norm", "group_norm",
        "batch_norm_eval", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "mse_mean", "cross_entropy_mean",
        "bilinear", "nearest_size", "pad_reflect_2d", "embedding"}


def cases() -> list[Case]:
    import torch
    import torch.nn.functional as F

    c: list[Case] = []

    def add(name, op, shapes, **kw):
        c.append(Case(name, op, shapes, **kw))

    # Modules are built on the CPU from the seed each test resets before each device's call, so that
    # both devices get the same parameters.
    # -- activations, each on 4-d (formats 0/2/3), 1-d, 0-d, empty and 3-d inputs
    acts = {
        "relu": F.relu, "relu6": F.relu6, "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "elu": F.elu,
        "elu_alpha": lambda x: F.elu(x, 0.5), "selu": F.selu, "celu": lambda x: F.celu(x, 1.5), "gelu": F.gelu,
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu, "mish": F.mish,
        "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "hardtanh": lambda x: F.hardtanh(x, -0.5, 0.75),
        "softplus": F.softplus, "softplus_beta": lambda x: F.softplus(x, beta=2, threshold=3),
        "softshrink": lambda x: F.softshrink(x, 0.5), "hardshrink": lambda x: F.hardshrink(x, 0.5),
        "threshold": lambda x: F.threshold(x, 0.3, -1.0), "logsigmoid": F.logsigmoid, "tanhshrink": F.tanhshrink,
        "sigmoid": torch.sigmoid, "tanh": torch.tanh, "softsign": F.softsign,
        "rrelu_eval": lambda x: F.rrelu(x, training=False),
    }
    for name, op in acts.items():
        add(name, op, ACT_SHAPES)
    # in place (on a non-leaf copy, so that backward runs through them) and out=
    inplace = {
        "relu_": lambda x: torch.relu_(x * 1), "leaky_relu_": lambda x: F.leaky_relu_(x * 1, 0.2),
        "elu_": lambda x: F.elu_(x * 1), "hardtanh_": lambda x: F.hardtanh_(x * 1), "selu_": lambda x: torch.selu_(x * 1),
        "celu_": lambda x: torch.celu_(x * 1), "threshold_": lambda x: F.threshold_(x * 1, 0.1, 2.0),
        "silu_inplace": lambda x: F.silu(x * 1, inplace=True), "hardswish_inplace": lambda x: F.hardswish(x * 1, inplace=True),
        "hardsigmoid_inplace": lambda x: F.hardsigmoid(x * 1, inplace=True), "mish_inplace": lambda x: F.mish(x * 1, inplace=True),
        "relu6_inplace": lambda x: F.relu6(x * 1, inplace=True),
    }
    for name, op in inplace.items():
        add(name, op, ACT_SHAPES[:2])
    outs = {
        "elu_out": lambda x: torch._C._nn.elu(x, out=torch.empty_like(x)),
        "softplus_out": lambda x: torch._C._nn.softplus(x, out=torch.empty_like(x)),
        "leaky_relu_out": lambda x: torch._C._nn.leaky_relu(x, 0.1, out=torch.empty_like(x)),
        "hardtanh_out": lambda x: torch._C._nn.hardtanh(x, out=torch.empty_like(x)),
        "gelu_out": lambda x: torch._C._nn.gelu(x, out=torch.empty_like(x)),
        "silu_out": lambda x: torch._C._nn.silu(x, out=torch.empty_like(x)),
        "log_sigmoid_out": lambda x: torch._C._nn.log_sigmoid(x, out=torch.empty_like(x)),
        "softmax_out": lambda x: torch._softmax(x, 1, False, out=torch.empty_like(x)),
        "log_softmax_out": lambda x: torch._log_softmax(x, 1, False, out=torch.empty_like(x)),
    }
    for name, op in outs.items():
        add(name, op, ACT_SHAPES[:1], backward=False)
    add("prelu", F.prelu, [[((2, 3, 4, 5), -2, 2, "f"), ((3,), 0, 0.5, "f")], [((2, 3, 4, 5), -2, 2, "f"), ((1,), 0, 0.5, "f")],
                           [((4, 6), -2, 2, "f"), ((6,), 0, 0.5, "f")]])
    add("glu", lambda x: F.glu(x, -1), [[((2, 3, 4, 6), -2, 2, "f")], [((4, 10), -2, 2, "f")]])
    add("glu_dim1", lambda x: F.glu(x, 1), [[((2, 4, 3, 5), -2, 2, "f")]])
    for dim in (0, 1, 2, 3, -1):
        add(f"softmax_dim{dim}", lambda x, d=dim: F.softmax(x, d), x4())
        add(f"log_softmax_dim{dim}", lambda x, d=dim: F.log_softmax(x, d), x4())
    add("softmin", lambda x: F.softmin(x, 1), x4())
    add("softmax_1d_0d_empty", lambda x: F.softmax(x, 0), [[((9,), -3, 3, "f")], [((), -3, 3, "f")], [((0, 3), -3, 3, "f")]])
    add("softmax_half_to_float", lambda x: F.softmax(x, -1, dtype=torch.float32), x4(), dtypes=("float16",))

    # -- convolution
    conv2d = [[((2, 4, 8, 8), -1, 1, "f"), ((6, 4, 3, 3), -1, 1, "f"), ((6,), -1, 1, "f")]]
    add("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1), conv2d)
    add("conv2d_stride2", lambda x, w, b: F.conv2d(x, w, b, stride=2), conv2d)
    add("conv2d_dilation2", lambda x, w, b: F.conv2d(x, w, b, padding=2, dilation=2), conv2d)
    add("conv2d_nobias", lambda x, w: F.conv2d(x, w, None, stride=(1, 2), padding=(0, 1)), [conv2d[0][:2]])
    add("conv2d_groups2", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=2),
        [[((2, 4, 7, 6), -1, 1, "f"), ((6, 2, 3, 3), -1, 1, "f"), ((6,), -1, 1, "f")]])
    add("conv2d_depthwise", lambda x, w: F.conv2d(x, w, None, padding=1, groups=4),
        [[((2, 4, 7, 6), -1, 1, "f"), ((4, 1, 3, 3), -1, 1, "f")]])
    add("conv2d_1x1", lambda x, w, b: F.conv2d(x, w, b), [[((2, 8, 5, 5), -1, 1, "f"), ((16, 8, 1, 1), -1, 1, "f"), ((16,), -1, 1, "f")]])
    add("conv2d_padding_same", lambda x, w: F.conv2d(x, w, padding="same"), [[((1, 3, 6, 7), -1, 1, "f"), ((2, 3, 4, 3), -1, 1, "f")]])
    add("conv2d_empty_batch", lambda x, w, b: F.conv2d(x, w, b), [[((0, 4, 8, 8), -1, 1, "f"), ((6, 4, 3, 3), -1, 1, "f"), ((6,), -1, 1, "f")]])
    add("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
        [[((2, 4, 10), -1, 1, "f"), ((6, 4, 3), -1, 1, "f"), ((6,), -1, 1, "f")]])
    add("conv1d_groups_dilation", lambda x, w: F.conv1d(x, w, None, padding=2, dilation=2, groups=2),
        [[((2, 4, 11), -1, 1, "f"), ((4, 2, 3), -1, 1, "f")]])
    add("conv3d", lambda x, w, b: F.conv3d(x, w, b, padding=1),
        [[((1, 2, 5, 6, 6), -1, 1, "f"), ((4, 2, 3, 3, 3), -1, 1, "f"), ((4,), -1, 1, "f")]])
    add("conv3d_stride_groups", lambda x, w: F.conv3d(x, w, None, stride=2, groups=2),
        [[((2, 4, 5, 6, 6), -1, 1, "f"), ((4, 2, 2, 3, 3), -1, 1, "f")]])
    add("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [[((2, 4, 5, 5), -1, 1, "f"), ((4, 3, 3, 3), -1, 1, "f"), ((3,), -1, 1, "f")]])
    add("conv_transpose2d_groups", lambda x, w: F.conv_transpose2d(x, w, None, groups=2, dilation=2),
        [[((2, 4, 5, 5), -1, 1, "f"), ((4, 2, 3, 3), -1, 1, "f")]])
    add("conv_transpose1d", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2),
        [[((2, 4, 7), -1, 1, "f"), ((4, 3, 3), -1, 1, "f"), ((3,), -1, 1, "f")]])
    add("conv_transpose3d", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1),
        [[((1, 2, 3, 4, 4), -1, 1, "f"), ((2, 3, 2, 2, 2), -1, 1, "f"), ((3,), -1, 1, "f")]])

    # -- pooling
    p4 = x4((2, 3, 9, 8))
    add("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1), p4)
    add("max_pool2d_indices", lambda x: F.max_pool2d(x, 2, return_indices=True), p4, compared=1)
    add("max_pool2d_ceil", lambda x: F.max_pool2d(x, (3, 2), (2, 2), ceil_mode=True), p4)
    add("max_pool2d_dilation", lambda x: F.max_pool2d(x, 2, 1, 0, dilation=2), p4)
    add("max_pool2d_3d_input", lambda x: F.max_pool2d(x, 2), [[((3, 6, 6), -2, 2, "f")]])
    add("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1), [[((2, 3, 11), -2, 2, "f")]])
    add("max_pool1d_indices", lambda x: F.max_pool1d(x, 2, return_indices=True), [[((2, 3, 10), -2, 2, "f")]], compared=1)
    add("max_pool3d", lambda x: F.max_pool3d(x, 2, 2, 1), [[((1, 2, 5, 4, 6), -2, 2, "f")]])
    add("max_pool3d_indices_ceil", lambda x: F.max_pool3d(x, 3, 2, ceil_mode=True, return_indices=True), [[((1, 2, 6, 5, 7), -2, 2, "f")]], compared=1)
    add("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1), p4)
    add("avg_pool2d_exclude_pad", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), p4)
    add("avg_pool2d_ceil", lambda x: F.avg_pool2d(x, 2, 2, ceil_mode=True), p4)
    add("avg_pool2d_divisor", lambda x: F.avg_pool2d(x, 2, divisor_override=3), p4)
    add("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, 1), [[((2, 3, 11), -2, 2, "f")]])
    add("avg_pool3d", lambda x: F.avg_pool3d(x, 2, 2, 1, count_include_pad=False), [[((1, 2, 5, 4, 6), -2, 2, "f")]])
    add("avg_pool3d_ceil", lambda x: F.avg_pool3d(x, 3, 2, ceil_mode=True), [[((1, 2, 6, 5, 7), -2, 2, "f")]])
    add("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), p4)
    add("adaptive_avg_pool2d_1", lambda x: F.adaptive_avg_pool2d(x, 1), p4)
    add("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), [[((2, 3, 11), -2, 2, "f")]])
    add("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), [[((1, 2, 5, 4, 6), -2, 2, "f")]])
    add("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 2), return_indices=True), p4, compared=1)
    add("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 4), [[((2, 3, 11), -2, 2, "f")]])
    add("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), [[((1, 2, 5, 4, 6), -2, 2, "f")]])
    add("max_pool2d_empty", lambda x: F.max_pool2d(x, 2), [[((0, 3, 4, 4), -2, 2, "f")]], formats=(2,))
    add("max_pool2d_module", lambda x: torch.nn.MaxPool2d(3, 2, 1)(x), p4)
    add("avg_pool2d_out", lambda x: torch._C._nn.avg_pool2d(x, 2, out=torch.empty(0, dtype=x.dtype, device=x.device)), p4,
        backward=False)

    # -- normalisation
    def bn_train(x, w, b):
        stats = (torch.zeros(x.shape[1], dtype=x.dtype, device=x.device), torch.ones(x.shape[1], dtype=x.dtype, device=x.device))
        y = F.batch_norm(x, *stats, w, b, training=True, momentum=0.1, eps=1e-5)
        return y, *stats
    add("batch_norm_train", bn_train, [[((2, 3, 4, 5), -2, 2, "f"), ((3,), 0.5, 1.5, "f"), ((3,), -1, 1, "f")],
                                       [((4, 3), -2, 2, "f"), ((3,), 0.5, 1.5, "f"), ((3,), -1, 1, "f")],
                                       [((2, 3, 5), -2, 2, "f"), ((3,), 0.5, 1.5, "f"), ((3,), -1, 1, "f")],
                                       [((2, 3, 2, 4, 5), -2, 2, "f"), ((3,), 0.5, 1.5, "f"), ((3,), -1, 1, "f")]])
    add("batch_norm_eval", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=False),
        [[((2, 3, 4, 5), -2, 2, "f"), ((3,), -1, 1, "c"), ((3,), 0.5, 2, "p"), ((3,), 0.5, 1.5, "f"), ((3,), -1, 1, "f")],
         [((4, 3), -2, 2, "f"), ((3,), -1, 1, "c"), ((3,), 0.5, 2, "p"), ((3,), 0.5, 1.5, "f"), ((3,), -1, 1, "f")]])
    add("batch_norm_no_affine", lambda x: F.batch_norm(x, None, None, training=True), x4())
    add("batchnorm2d_module", lambda x: torch.nn.BatchNorm2d(3).to(x.device, x.dtype)(x), x4())
    add("layer_norm", lambda x, w, b: F.layer_norm(x, (4, 5), w, b), [[((2, 3, 4, 5), -2, 2, "f"), ((4, 5), 0.5, 1.5, "f"), ((4, 5), -1, 1, "f")]])
    add("layer_norm_last", lambda x, w, b: F.layer_norm(x, (7,), w, b, eps=1e-6), [[((3, 7), -2, 2, "f"), ((7,), 0.5, 1.5, "f"), ((7,), -1, 1, "f")],
                                                                                    [((2, 5, 7), -2, 2, "f"), ((7,), 0.5, 1.5, "f"), ((7,), -1, 1, "f")]])
    add("layer_norm_no_affine", lambda x: F.layer_norm(x, (5,)), x4())
    add("layer_norm_empty", lambda x: F.layer_norm(x, (5,)), [[((0, 5), -2, 2, "f")]])
    add("group_norm", lambda x, w, b: F.group_norm(x, 3, w, b), [[((2, 6, 4, 5), -2, 2, "f"), ((6,), 0.5, 1.5, "f"), ((6,), -1, 1, "f")],
                                                                [((2, 6, 7), -2, 2, "f"), ((6,), 0.5, 1.5, "f"), ((6,), -1, 1, "f")]])
    add("group_norm_no_affine", lambda x: F.group_norm(x, 2), x4((2, 4, 3, 5)))
    add("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [[((2, 3, 4, 5), -2, 2, "f"), ((3,), 0.5, 1.5, "f"), ((3,), -1, 1, "f")]])
    add("instance_norm_no_affine", lambda x: F.instance_norm(x), [[((2, 3, 4, 5), -2, 2, "f")], [((2, 3, 7), -2, 2, "f")]])
    add("rms_norm", lambda x, w: F.rms_norm(x, (5,), w, eps=1e-6), [[((2, 3, 4, 5), -2, 2, "f"), ((5,), 0.5, 1.5, "f")],
                                                                    [((6, 5), -2, 2, "f"), ((5,), 0.5, 1.5, "f")]])
    add("rms_norm_no_weight", lambda x: F.rms_norm(x, (4, 5)), x4())
    add("local_response_norm", lambda x: F.local_response_norm(x, 3), x4())
    add("normalize", lambda x: F.normalize(x, dim=1), x4())

    # -- losses (each reduction)
    pair = lambda s=(4, 5): [[(s, -2, 2, "f"), (s, -2, 2, "f")]]  # noqa: E731
    for red in ("mean", "sum", "none"):
        add(f"mse_{red}", lambda a, b, r=red: F.mse_loss(a, b, reduction=r), pair() + pair((2, 3, 4, 5)) + pair(()))
        add(f"l1_{red}", lambda a, b, r=red: F.l1_loss(a, b, reduction=r), pair() + pair((2, 3, 4, 5)))
        add(f"smooth_l1_{red}", lambda a, b, r=red: F.smooth_l1_loss(a, b, reduction=r, beta=0.5), pair() + pair((2, 3, 4, 5)))
        add(f"huber_{red}", lambda a, b, r=red: F.huber_loss(a, b, reduction=r, delta=0.7), pair())
        add(f"nll_{red}", lambda x, t, r=red: F.nll_loss(F.log_softmax(x, 1), t, reduction=r), [[((4, 5), -2, 2, "f"), ((4,), 0, 5, "i")]])
        add(f"nll_weight_ignore_{red}", lambda x, t, w, r=red: F.nll_loss(F.log_softmax(x, 1), t, w, ignore_index=1, reduction=r),
            [[((6, 5), -2, 2, "f"), ((6,), 0, 5, "i"), ((5,), 0.2, 1, "c")]])
        add(f"nll2d_{red}", lambda x, t, r=red: F.nll_loss(F.log_softmax(x, 1), t, reduction=r), [[((2, 5, 3, 4), -2, 2, "f"), ((2, 3, 4), 0, 5, "i")]],
            formats=(2,))
        add(f"cross_entropy_{red}", lambda x, t, r=red: F.cross_entropy(x, t, reduction=r), [[((4, 5), -2, 2, "f"), ((4,), 0, 5, "i")]])
        add(f"bce_{red}", lambda x, t, r=red: F.binary_cross_entropy(x, t, reduction=r), [[((4, 5), 0.05, 0.95, "f"), ((4, 5), 0, 1, "c")]])
        add(f"bce_logits_{red}", lambda x, t, r=red: F.binary_cross_entropy_with_logits(x, t, reduction=r),
            [[((4, 5), -2, 2, "f"), ((4, 5), 0, 1, "c")]])
        add(f"kl_div_{red}", lambda x, t, r=red: F.kl_div(F.log_softmax(x, 1), t, reduction=r), [[((4, 5), -2, 2, "f"), ((4, 5), 0.05, 1, "c")]])
        add(f"soft_margin_{red}", lambda x, t, r=red: F.soft_margin_loss(x, t.sign(), reduction=r), [[((4, 5), -2, 2, "f"), ((4, 5), -1, 1, "c")]])
    add("cross_entropy_weight_ignore", lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=2), [[((6, 5), -2, 2, "f"), ((6,), 0, 5, "i"), ((5,), 0.2, 1, "c")]])
    add("cross_entropy_label_smoothing", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), [[((6, 5), -2, 2, "f"), ((6,), 0, 5, "i")]])
    add("cross_entropy_ls_weight", lambda x, t, w: F.cross_entropy(x, t, w, label_smoothing=0.2, ignore_index=0),
        [[((6, 5), -2, 2, "f"), ((6,), 0, 5, "i"), ((5,), 0.2, 1, "c")]])
    add("cross_entropy_probs", lambda x, t: F.cross_entropy(x, t.softmax(1)), [[((4, 5), -2, 2, "f"), ((4, 5), -2, 2, "c")]])
    add("cross_entropy_4d", lambda x, t: F.cross_entropy(x, t), [[((2, 5, 3, 4), -2, 2, "f"), ((2, 3, 4), 0, 5, "i")]], formats=(2,))
    add("cross_entropy_module", lambda x, t: torch.nn.CrossEntropyLoss()(x, t), [[((8, 10), -2, 2, "f"), ((8,), 0, 10, "i")]])
    add("bce_weight", lambda x, t, w: F.binary_cross_entropy(x, t, w), [[((4, 5), 0.05, 0.95, "f"), ((4, 5), 0, 1, "c"), ((5,), 0.2, 1, "c")]])
    add("bce_logits_pos_weight", lambda x, t, w, p: F.binary_cross_entropy_with_logits(x, t, w, pos_weight=p),
        [[((4, 5), -2, 2, "f"), ((4, 5), 0, 1, "c"), ((5,), 0.2, 1, "c"), ((5,), 0.5, 2, "c")]])
    add("kl_div_batchmean", lambda x, t: F.kl_div(F.log_softmax(x, 1), t, reduction="batchmean"), [[((4, 5), -2, 2, "f"), ((4, 5), 0.05, 1, "c")]])
    add("kl_div_log_target", lambda x, t: F.kl_div(F.log_softmax(x, 1), t.log_softmax(1), reduction="sum", log_target=True),
        [[((4, 5), -2, 2, "f"), ((4, 5), -2, 2, "c")]])
    add("multilabel_soft_margin", lambda x, t: F.multilabel_soft_margin_loss(x, t.round()), [[((4, 5), -2, 2, "f"), ((4, 5), 0, 1, "c")]])

    # -- dropout: eval is the identity; train keeps each element at x/(1-p) or 0 (checked, not compared)
    add("dropout_eval", lambda x: F.dropout(x, 0.3, training=False), x4())
    add("dropout_train", lambda x: F.dropout(x, 0.3, training=True), [[((64, 50), 1, 2, "f")]], check=dropout_check(0.3), formats=(2,))
    add("dropout_train_module", lambda x: torch.nn.Dropout(0.5)(x), [[((2, 8, 16, 16), 1, 2, "f")]], check=dropout_check(0.5))
    add("dropout_p0", lambda x: F.dropout(x, 0.0, training=True), x4())
    add("dropout2d_train", lambda x: F.dropout2d(x, 0.5, training=True), [[((4, 32, 6, 6), 1, 2, "f")]], check=dropout_check(0.5, channels=True),
        formats=(2,))

    # -- embedding
    add("embedding", lambda i, w: F.embedding(i, w), [[((4, 5), 0, 10, "i"), ((10, 3), -1, 1, "f")]])
    add("embedding_padding_idx", lambda i, w: F.embedding(i, w, padding_idx=2), [[((4, 7), 0, 10, "i"), ((10, 3), -1, 1, "f")]])
    add("embedding_max_norm", lambda i, w: (F.embedding(i, w.detach(), max_norm=1.0), w), [[((6,), 0, 10, "i"), ((10, 4), -1, 1, "c")]],
        backward=False)
    add("embedding_scale_grad", lambda i, w: F.embedding(i, w, scale_grad_by_freq=True), [[((12,), 0, 5, "i"), ((5, 3), -1, 1, "f")]])

    # -- interpolate
    add("nearest_size", lambda x: F.interpolate(x, size=(7, 11), mode="nearest"), x4())
    add("nearest_scale", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), x4())
    add("nearest_exact", lambda x: F.interpolate(x, size=(6, 3), mode="nearest-exact"), x4())
    add("nearest_1d", lambda x: F.interpolate(x, size=9, mode="nearest"), [[((2, 3, 5), -2, 2, "f")]])
    add("nearest_3d", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), [[((1, 2, 3, 4, 3), -2, 2, "f")]])
    add("bilinear", lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False), x4())
    add("bilinear_align", lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True), x4())
    add("bilinear_scale_down", lambda x: F.interpolate(x, scale_factor=0.5, mode="bilinear"), x4((2, 3, 8, 10)))
    add("bilinear_antialias", lambda x: F.interpolate(x, size=(3, 4), mode="bilinear", antialias=True), x4((2, 3, 8, 10)))
    add("bicubic", lambda x: F.interpolate(x, size=(7, 9), mode="bicubic", align_corners=False), x4())
    add("bicubic_align", lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True), x4())
    add("linear_1d", lambda x: F.interpolate(x, size=9, mode="linear"), [[((2, 3, 5), -2, 2, "f")]])
    add("linear_1d_align", lambda x: F.interpolate(x, size=9, mode="linear", align_corners=True), [[((2, 3, 5), -2, 2, "f")]])
    add("trilinear", lambda x: F.interpolate(x, size=(4, 5, 6), mode="trilinear"), [[((1, 2, 3, 4, 3), -2, 2, "f")]])
    add("area", lambda x: F.interpolate(x, size=(2, 3), mode="area"), x4())
    add("upsample_module", lambda x: torch.nn.Upsample(scale_factor=2, mode="bilinear")(x), x4())

    # -- padding
    for mode in ("constant", "reflect", "replicate", "circular"):
        value = {"value": 0.5} if mode == "constant" else {}
        add(f"pad_{mode}_1d", lambda x, m=mode, v=value: F.pad(x, (2, 1), mode=m, **v), [[((2, 3, 6), -2, 2, "f")]])
        add(f"pad_{mode}_2d", lambda x, m=mode, v=value: F.pad(x, (1, 2, 2, 1), mode=m, **v), x4())
        add(f"pad_{mode}_3d", lambda x, m=mode, v=value: F.pad(x, (1, 1, 2, 0, 1, 2), mode=m, **v), [[((1, 2, 3, 4, 5), -2, 2, "f")]])
    add("pad_constant_negative", lambda x: F.pad(x, (-1, 2, 0, -1)), x4())
    add("pad_reflect_3d_input", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), [[((3, 4, 5), -2, 2, "f")]])

    # -- pixel shuffle, unfold / fold
    add("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), x4((2, 8, 3, 3)))
    add("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), x4((2, 3, 4, 6)))
    add("unfold", lambda x: F.unfold(x, 3, padding=1, stride=2), x4((2, 3, 6, 7)))
    add("unfold_dilation", lambda x: F.unfold(x, (2, 3), dilation=2), x4((2, 3, 6, 7)))
    add("fold", lambda x: F.fold(x, (4, 4), 2), [[((2, 12, 9), -2, 2, "f")]])
    add("fold_stride_pad", lambda x: F.fold(x, (5, 5), 3, padding=1, stride=2), [[((1, 18, 9), -2, 2, "f")]])
    add("tensor_unfold", lambda x: x.unfold(2, 2, 1), x4())

    # -- linear / bilinear
    add("linear", lambda x, w, b: F.linear(x, w, b), [[((4, 5), -1, 1, "f"), ((3, 5), -1, 1, "f"), ((3,), -1, 1, "f")],
                                                     [((2, 4, 5), -1, 1, "f"), ((3, 5), -1, 1, "f"), ((3,), -1, 1, "f")],
                                                     [((0, 5), -1, 1, "f"), ((3, 5), -1, 1, "f"), ((3,), -1, 1, "f")]])
    add("linear_nobias", lambda x, w: F.linear(x, w), [[((2, 3, 4, 5), -1, 1, "f"), ((6, 5), -1, 1, "f")], [((5,), -1, 1, "f"), ((6, 5), -1, 1, "f")]])
    add("linear_module", lambda x: torch.nn.Linear(16, 8).to(x.device, x.dtype)(x), [[((4, 16), -1, 1, "f")]])
    add("conv2d_module", lambda x: torch.nn.Conv2d(3, 4, 3, padding=1).to(x.device, x.dtype)(x), x4())
    add("bilinear_layer", lambda a, b, w, bias: F.bilinear(a, b, w, bias),
        [[((4, 5), -1, 1, "f"), ((4, 6), -1, 1, "f"), ((3, 5, 6), -1, 1, "f"), ((3,), -1, 1, "f")]])
    add("bilinear_layer_nobias", lambda a, b, w: F.bilinear(a, b, w), [[((2, 4, 5), -1, 1, "f"), ((2, 4, 6), -1, 1, "f"), ((3, 5, 6), -1, 1, "f")]])
    return c


def dropout_check(p: float, channels: bool = False):
    def check(x, y, grad):
        import torch
        x, y = x.detach().cpu().float(), y.detach().cpu().float()
        if y.shape != x.shape:
            return f"shape {tuple(y.shape)} for {tuple(x.shape)}"
        kept = y != 0
        scaled = torch.isclose(y[kept], x[kept] / (1 - p), rtol=1e-3, atol=1e-3)
        if not bool(scaled.all()):
            return f"kept elements are not x/(1-p): {int((~scaled).sum())} differ"
        dropped = 1 - kept.float().mean().item()
        if abs(dropped - p) > 0.15:
            return f"{dropped:.2f} of the elements dropped for p={p}"
        if channels and not bool((kept.all(-1).all(-1) | (~kept).all(-1).all(-1)).all()):
            return "dropout2d did not drop whole channels"
        if grad is not None:
            grad = grad.detach().cpu().float()
            if not torch.allclose(grad, kept.float() / (1 - p), rtol=1e-3, atol=1e-3):
                return "the gradient is not the kept mask / (1-p)"
        return None
    return check


# ---------------------------------------------------------------------------------------------------
# The device's rounding, on the CPU. On a device every aten operator that reaches a kernel writes its
# 16-bit output once (CANN's vector and cube kernels compute float16 and bfloat16 in float32 and cast at
# the end), and the next operator reads the rounded values: log_softmax's float16 output is what
# log_softmax_backward and kl_div read, tanhshrink is tanh then sub. The framework suites' golden
# computes the whole chain in float32 and rounds at the end, so a chain that amplifies an intermediate's
# rounding (a cancellation, an exp of a rounded logarithm) fails it on a device too. device_rounding()
# computes that chain on the CPU, each operator where the NPU runs one kernel in float32 from 16-bit
# inputs with one rounding of its 16-bit outputs:
# - an aten operator torch_npu implements itself (a PrivateUse1 kernel) computes whole, even where the
#   CPU's is a composite (kl_div: CompositeImplicitAutograd, decomposed before a dispatch mode sees it,
#   so it is taken at the torch-function level);
# - an operator the NPU runs as aten's composite (_trilinear: CompositeExplicitAutogradNonFunctional)
#   runs that composite, each of its operators rounding;
# - views, copies and dtype conversions are left as they are.

def device_rounding(dtype):
    """A context in which the CPU rounds to `dtype` after each operator, as a device does."""
    import contextlib

    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_map

    def has_kernel(name, key):
        try:
            return torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
        except RuntimeError:  # no such operator
            return False

    def widen(values):
        found = []

        def up(v):
            if isinstance(v, torch.Tensor) and v.dtype == dtype:
                found.append(v)
                return v.float()
            return torch.float32 if v is dtype else v
        return tree_map(up, values), bool(found)

    def narrow(values):
        return tree_map(lambda v: v.to(dtype) if isinstance(v, torch.Tensor) and v.dtype == torch.float32 else v, values)

    class WholeKernels(TorchFunctionMode):
        """torch_npu's own kernels for operators the CPU decomposes: computed whole, rounded once."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = "aten::" + getattr(func, "__name__", "")
            if has_kernel(name, "PrivateUse1") and has_kernel(name, "CompositeImplicitAutograd"):
                (wide_args, wide_kwargs), low = widen((args, kwargs))
                if low:  # (this mode is off while its handler runs; the dispatch mode is switched off too)
                    with ExactOperators.inactive():
                        return narrow(func(*wide_args, **wide_kwargs))
            return func(*args, **kwargs)

    class ExactOperators(TorchDispatchMode):
        """Each aten operator in float32 from its 16-bit inputs, its 16-bit outputs rounded once."""
        active = None

        def __init__(self):
            super().__init__()
            self.decomposing: set[str] = set()

        @classmethod
        @contextlib.contextmanager
        def inactive(cls):
            mode, cls.active = cls.active, None
            try:
                yield
            finally:
                cls.active = mode

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if ExactOperators.active is None or func.is_view or func in (torch.ops.aten._to_copy.default,
                                                                         torch.ops.aten.copy_.default):
                return func(*args, **kwargs)
            name, overload = func._schema.name, func.name()
            # A composite that comes back to its own operator (gelu's calls gelu.out, which op-plugin
            # implements) is one kernel; others (_trilinear's) run their operators.
            if not has_kernel(overload, "PrivateUse1") and name not in self.decomposing:
                for key in ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd"):
                    if has_kernel(overload, key):
                        self.decomposing.add(name)
                        try:
                            with self:
                                return func._op_dk(getattr(torch._C.DispatchKey, key), *args, **kwargs)
                        finally:
                            self.decomposing.discard(name)
            (wide_args, wide_kwargs), low = widen((args, kwargs))
            if not low:
                return func(*args, **kwargs)
            result = narrow(func(*wide_args, **wide_kwargs))
            # What the op wrote (in place, out=, and native_batch_norm's running statistics, which its
            # schema does not mark) goes back rounded, resized as the op resized it; a result that
            # aliases a written argument is that argument.
            written = {}
            pairs = list(zip(args, wide_args)) + [(kwargs[k], wide_kwargs[k]) for k in kwargs]
            for original, wide in pairs:
                if isinstance(original, torch.Tensor) and original is not wide and not (
                        original.shape == wide.shape and torch.equal(original.float(), wide)):
                    if original.shape != wide.shape:
                        original.resize_(wide.shape)
                    original.copy_(wide)
            for k, argument in enumerate(func._schema.arguments):
                if argument.alias_info is not None and argument.alias_info.is_write:
                    original = args[k] if k < len(args) else kwargs.get(argument.name)
                    written.update({alias: original for alias in argument.alias_info.after_set})
            returns = func._schema.returns
            values = list(result) if len(returns) > 1 else [result]
            values = [written.get(next(iter(r.alias_info.after_set)), v) if r.alias_info is not None else v
                      for r, v in zip(returns, values)]
            return tuple(values) if len(returns) > 1 else values[0]

    @contextlib.contextmanager
    def both():
        dispatch = ExactOperators()
        with WholeKernels(), dispatch:
            ExactOperators.active = dispatch
            try:
                yield
            finally:
                ExactOperators.active = None
    return both()


# ---------------------------------------------------------------------------------------------------
# Worker: one TestCase per test, run by unittest, each printing one JSON line.

def plan(only: set[str] | None, soc: str | None) -> list[tuple[Case, list, str, int, bool]]:
    # Ascend910 and Ascend310P have no bfloat16 (the simulator refuses even the cast to it, as CANN).
    bf16 = soc not in ("Ascend910", "Ascend310P")
    tests = []
    for case in cases():
        if only and not any(case.name.startswith(o) for o in only):
            continue
        for inputs in case.shapes:
            four_d = bool(inputs) and inputs[0][3] != "i" and len(inputs[0][0]) == 4
            for dtype in case.dtypes + (("bfloat16",) if bf16 and case.name in BF16 else ()):
                for fmt in (case.formats if four_d else (2,)):
                    tests.append((case, inputs, dtype, fmt, False))
                    if case.backward and case.check is None and any(kind == "f" for *_, kind in inputs):
                        tests.append((case, inputs, dtype, fmt, True))
    return tests


def describe(test) -> str:
    case, inputs, dtype, fmt, backward = test
    shapes = ",".join("x".join(map(str, s)) or "0d" for s, *_ in inputs)
    return f"{case.name} {dtype} fmt{fmt} [{shapes}]{' backward' if backward else ''}"


def worker(start: int, only: set[str] | None, verbose: bool) -> None:
    soc = os.environ.get("ACLNN_SIM_SOC", "Ascend910B")
    import numpy as np
    import torch
    import torch_npu  # noqa: F401
    from torch_npu.testing.common_utils import create_common_tensor
    from torch_npu.testing.testcase import TestCase

    sys.path.insert(0, str(Path(__file__).parent))
    from host_code import NN_SUITE
    from opinfo_sweep import reason_of

    control = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    np_dtypes = {"float32": np.float32, "float16": np.float16, "bfloat16": np.float32}
    strict = {"float32": 1e-3, "float16": 1e-2, "bfloat16": 2e-2}

    class NnTest(TestCase):
        def runTest(self):  # noqa: N802 - unittest's name
            pass

    tc = NnTest()
    tests = plan(only, soc)

    def make_inputs(inputs, dtype, fmt, grad):
        cpu, npu = [], []
        for k, (shape, low, high, kind) in enumerate(inputs):
            if kind == "i":
                a, b = create_common_tensor([np.int64, -1, shape], low, high)
            else:
                low = max(low, 0.05) if kind == "p" else low
                form = fmt if (k == 0 and len(shape) == 4) else (2 if shape else -1)
                a, b = create_common_tensor([np_dtypes[dtype], form, shape], low, high)
                if dtype == "bfloat16":
                    b = b.to(torch.bfloat16)
                    a = a.to(torch.bfloat16)
                # float16 and bfloat16 inputs computed on the CPU in float32, as the framework's suites do
                a = a.float()
                if kind == "f" and grad:
                    a.requires_grad_(True)
                    b.requires_grad_(True)
            cpu.append(a)
            npu.append(b)
        return cpu, npu

    def outputs(result):
        return list(result) if isinstance(result, (tuple, list)) else [result]

    def as_numpy(t, like_dtype):
        t = t.detach().cpu()
        if t.dtype.is_floating_point:
            t = t.to(like_dtype)
        return t.numpy()

    class Rounding(Exception):
        """The golden's failure, explained by the device's rounding of intermediates."""

    def run(case, inputs, index, backward):
        """The case's compared results on `inputs` (their gradients for a backward test)."""
        torch.manual_seed(index)
        results = outputs(case.op(*inputs))
        if backward:
            # Through the compared outputs only (torch_npu marks a pool's indices as differentiable).
            for r in results[:case.compared]:
                if r.requires_grad:
                    r.backward(torch.ones_like(r))
            return [t.grad for t in inputs if t.requires_grad]
        return results[:case.compared] if case.compared is not None else results

    def compare(want, got):
        """assertRtolEqual on each pair, as the framework's suites call it."""
        for k, (w, g) in enumerate(zip(want, got)):
            if w is None or g is None:
                if (w is None) != (g is None):
                    raise AssertionError(f"result {k}: gradient {'missing' if g is None else 'unexpected'}")
                continue
            like = g.dtype
            if like == torch.bfloat16:
                cpu_np, npu_np = as_numpy(w.to(like), torch.float32), as_numpy(g, torch.float32)
            else:
                cpu_np, npu_np = as_numpy(w, like), as_numpy(g, like)
            try:
                tc.assertRtolEqual(cpu_np, npu_np, prec=1e-2 if like == torch.bfloat16 else 1e-4)
            except AssertionError as error:
                detail = ""
                if cpu_np.shape == npu_np.shape and cpu_np.size:
                    diff = np.abs(cpu_np.astype(np.float64) - npu_np.astype(np.float64))
                    detail = f": {int((diff > 0).sum())}/{diff.size} differ, max {diff.max():.3g} at {np.unravel_index(diff.argmax(), diff.shape)}"
                raise AssertionError(f"result {k} {error}{detail} ({cpu_np.shape} vs {npu_np.shape}, {cpu_np.dtype} vs {npu_np.dtype})") from None

    def gives(explained, case, cpu_in, index, backward, got):
        """Whether got equals the explanation's model computed on the CPU from the test's inputs."""
        if got is None:
            return False
        model_in = [t.detach().clone().requires_grad_(t.requires_grad) if t.is_floating_point() else t for t in cpu_in]
        try:
            compare(run(replace(case, op=explained.model), model_in, index, backward), got)
        except AssertionError:
            return False
        return True

    for index in range(start, len(tests)):
        test = tests[index]
        case, inputs, dtype, fmt, backward = test
        control.write(json.dumps({"start": index}) + "\n")
        control.flush()
        torch.manual_seed(index)
        np.random.seed(index)
        kind, why, got = "pass", "", None
        try:
            cpu_in, npu_in = make_inputs(inputs, dtype, fmt, backward or (case.check is not None and case.backward))
            if case.check is not None:
                out = case.op(*npu_in)
                grad = None
                if case.backward and npu_in[0].requires_grad:
                    out.backward(torch.ones_like(out))
                    grad = npu_in[0].grad
                torch.npu.synchronize()
                problem = case.check(npu_in[0], out, grad)
                kind, why = ("WRONG", problem) if problem else ("pass", "")
            else:
                want = run(case, cpu_in, index, backward)
                got = run(case, npu_in, index, backward)
                torch.npu.synchronize()
                if len(want) != len(got):
                    raise AssertionError(f"{len(got)} results for {len(want)}")
                try:
                    compare(want, got)
                except AssertionError as error:
                    if dtype == "float32":
                        raise
                    # Against the device's rounding (device_rounding): from the same 16-bit inputs.
                    rounded = torch.bfloat16 if dtype == "bfloat16" else torch.float16
                    model_in = [t.detach().to(rounded).requires_grad_(t.requires_grad) if t.is_floating_point() else t
                                for t in cpu_in]
                    with device_rounding(rounded):
                        model = run(case, model_in, index, backward)
                    try:
                        compare(model, got)
                    except AssertionError:
                        raise error from None
                    raise Rounding(str(error)) from None
                lax = []
                for k, (w, g) in enumerate(zip(want, got)):
                    if w is None or g is None:
                        continue
                    if w.dtype.is_floating_point and w.numel():
                        a, b = w.detach().float(), g.detach().cpu().float()
                        tol = strict[dtype]
                        off = ~torch.isclose(b, a.to(g.dtype).float(), rtol=tol, atol=tol, equal_nan=True)
                        if bool(off.any()):
                            lax.append(f"result {k}: {int(off.sum())}/{off.numel()} off, max {float((a - b).abs()[off].max()):.3g}")
                if lax:
                    kind, why = "lax", "; ".join(lax)
        except Rounding as error:
            kind, why = "rounding", f"passes with each aten operator's output rounded, as on a device: {str(error)[:200]}"
        except AssertionError as error:
            kind, why = "WRONG", str(error).splitlines()[0][:240] if str(error) else "assertRtolEqual failed"
            explained = NN_SUITE.get((case.name, backward))
            if explained is not None and explained.applies(soc, dtype) and gives(explained, case, cpu_in, index, backward, got):
                kind, why = explained.kind, f"{explained.why}: {why}"
        except Exception as error:  # noqa: BLE001 - a refusal is the answer being counted
            kind, why = "refused", reason_of(error)
        control.write(json.dumps({"index": index, "kind": kind, "test": describe(test), "why": why}) + "\n")
        control.flush()


# ---------------------------------------------------------------------------------------------------
# Driver

def drive(soc: str | None, only: set[str] | None, verbose: bool, task_queue: bool = False) -> collections.Counter:
    sys.path.insert(0, str(Path(__file__).parent))
    from opinfo_sweep import environment

    os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    total = len(plan(only, soc))
    env = environment(TOOLKIT, soc, task_queue)
    tally: collections.Counter = collections.Counter()
    by_case: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    start = 0
    while start < total:
        command = [sys.executable, __file__, "--worker", str(start)] + (["--only", ",".join(sorted(only))] if only else [])
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        current = start
        while True:
            ready, _, _ = select.select([process.stdout], [], [], HANG)
            line = process.stdout.readline() if ready else ""
            if not line:
                process.kill()
                process.wait()
                tests = plan(only, soc)
                name = describe(tests[current]) if current < total else "?"
                print(f"{'crash':8} {name} {'no answer in %d s' % HANG if not ready else 'the worker died'}", flush=True)
                tally["crash"] += 1
                start = current + 1
                break
            event = json.loads(line)
            if "start" in event:
                current = event["start"]
                continue
            tally[event["kind"]] += 1
            by_case[event["test"].split()[0]][event["kind"]] += 1
            if verbose or event["kind"] != "pass":
                print(f"{event['kind']:8} {event['test']} {event['why']}", flush=True)
            if event["index"] == total - 1:
                process.wait()
                start = total
                break
    print("CASES", json.dumps({name: dict(counts) for name, counts in by_case.items() if set(counts) != {"pass"}}))
    print("TALLY", soc or "default", json.dumps(dict(tally)))
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soc", help="ACLNN_SIM_SOC (default: the simulator's, Ascend910B)")
    parser.add_argument("--only", help="comma-separated prefixes of case names")
    parser.add_argument("--verbose", action="store_true", help="print passing tests too")
    parser.add_argument("--task-queue", action="store_true", help="without ASCEND_LAUNCH_BLOCKING (torch_npu's default)")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    if args.worker is not None:
        worker(args.worker, only, args.verbose)
    else:
        drive(args.soc, only, args.verbose, args.task_queue)


if __name__ == "__main__":
    main()
