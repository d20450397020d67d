// The aclop bridge's neural-network operator types that torch_npu's op-plugin sends a plain tensor to
// on Ascend910 and Ascend310P (ACL_OP_JIT_COMPILE enabled there): losses, padding by reflection and
// replication, adaptive average pooling, group norm, cumulative max/min, the cross product, a few
// activations, resizing and grid sampling, and NonZero and MaskedSelect, whose output's extent the
// data decides. Found by tests/torch_npu/opinfo_sweep.py --soc Ascend910, modelled in the order
// of the OpInfo operators each blocked; each runs the simulator's aclnn API of the same operation
// with the attributes the CANN prototype gives it (torch_npu's wheel carries the prototypes:
// torchair's auto_generated_ge_raw_ops.py). An attribute value no aclnn API expresses is refused
// naming it. This file holds the table (NnEntries) and the losses, pads, distances and the small
// operators; the indexing, the resizing and sampling, and the pools are in indexing.cpp,
// sampling.cpp and pooling.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/host_kernel.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

namespace {

using LossApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*>;  // L1Loss
using SoftMarginLossApi = Phase1<const aclTensor*, const aclTensor*, int64_t, const aclTensor*>;
using SmoothL1LossApi = Phase1<const aclTensor*, const aclTensor*, int64_t, float, aclTensor*>;
using KlDivApi = Phase1<const aclTensor*, const aclTensor*, int64_t, bool, aclTensor*>;
using BceApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using BceWithLogitsApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using CrossApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using CumApi = Phase1<const aclTensor*, int64_t, aclTensor*, aclTensor*>;  // Cummax, Cummin
using GroupNormApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, int64_t, int64_t, int64_t,
                            double, aclTensor*, aclTensor*, aclTensor*>;
using PdistApi = Phase1<const aclTensor*, float, aclTensor*>;
using SubApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;
using NormApi = Phase1<const aclTensor*, const aclScalar*, const aclIntArray*, bool, aclTensor*>;
using CtcLossApi = Phase1<const aclTensor*, const aclTensor*, const aclIntArray*, const aclIntArray*, int64_t, bool,
                         aclTensor*, aclTensor*>;
using EmbeddingBagApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, bool, int64_t, bool, const aclTensor*,
                              bool, int64_t, aclTensor*, aclTensor*, aclTensor*, aclTensor*>;
using MultilabelMarginLossApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*, aclTensor*>;

// A loss's output: a reduced loss is one element, which torch_npu gives as [] or [1]; the aclnn
// APIs write it as a 0-d tensor.
aclTensor* LossOutput(AclnnObjects& o, const Operand& y, int64_t reduction) {
  if (reduction != 0 && Elements(y.desc->dims) == 1) return o.Tensor(y, "y", {});
  return o.Tensor(y, "y");
}

// What every loss here reads alike: its reduction (one of `reductions`, CANN's names in the order of
// the aclnn APIs' numbers), its first two inputs and its output (LossOutput). A tensor that cannot be
// made leaves its error in `o`.
struct Loss {
  int64_t reduction = 0;
  aclTensor* first = nullptr;
  aclTensor* second = nullptr;
  aclTensor* out = nullptr;
};

aclError ReadLoss(const OpCall& call, AclnnObjects& o, const char* first, const char* second, Loss* loss,
                  std::initializer_list<const char*> reductions = kReductions) {
  if (aclError s = call.Choice("reduction", "mean", reductions, &loss->reduction)) return s;
  loss->first = o.Tensor(call.inputs[0], first);
  loss->second = o.Tensor(call.inputs[1], second);
  loss->out = LossOutput(o, call.outputs[0], loss->reduction);
  return ACL_SUCCESS;
}

// LpLoss (predict, label; attributes p, reduction): p = 1 is the L1 loss; other p are not modelled.
aclError LpLoss(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const int64_t p = call.Int("p", 1);
  if (p != 1) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute p = " + std::to_string(p) + " is not modelled (1 is)");
  AclnnObjects o(call);
  Loss l;
  if (aclError s = ReadLoss(call, o, "predict", "label", &l)) return s;
  if (o.status()) return o.status();
  return Aclnn<LossApi>(call, "aclnnL1Loss", l.first, l.second, l.reduction, l.out);
}

// SmoothL1LossV2 (predict, label; attributes sigma, reduction): sigma is the beta of PyTorch's and
// aclnnSmoothL1Loss's formula.
aclError SmoothL1Loss(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  Loss l;
  if (aclError s = ReadLoss(call, o, "predict", "label", &l)) return s;
  if (o.status()) return o.status();
  return Aclnn<SmoothL1LossApi>(call, "aclnnSmoothL1Loss", l.first, l.second, l.reduction, call.Float("sigma", 1.0f), l.out);
}

// SoftMarginLoss (input_x, input_y; attribute reduction).
aclError SoftMarginLoss(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  Loss l;
  if (aclError s = ReadLoss(call, o, "input_x", "input_y", &l)) return s;
  if (o.status()) return o.status();
  return Aclnn<SoftMarginLossApi>(call, "aclnnSoftMarginLoss", l.first, l.second, l.reduction, l.out);
}

// KLDiv (x, target; attributes reduction "none", "mean", "sum" or "batchmean", log_target):
// aclnnKlDiv's reduction 0 to 3 (its page).
aclError KlDiv(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  Loss l;
  if (aclError s = ReadLoss(call, o, "x", "target", &l, {"none", "mean", "sum", "batchmean"})) return s;
  if (o.status()) return o.status();
  return Aclnn<KlDivApi>(call, "aclnnKlDiv", l.first, l.second, l.reduction, call.Bool("log_target", false), l.out);
}

// BinaryCrossEntropy (x, y, optional weight; attribute reduction).
aclError BinaryCrossEntropy(const OpCall& call) {
  if (aclError s = call.Arity(2, 3, 1)) return s;
  AclnnObjects o(call);
  Loss l;
  if (aclError s = ReadLoss(call, o, "x", "y", &l)) return s;
  aclTensor* weight = call.inputs.size() > 2 ? o.Tensor(call.inputs[2], "weight") : nullptr;
  if (o.status()) return o.status();
  return Aclnn<BceApi>(call, "aclnnBinaryCrossEntropy", l.first, l.second, weight, l.reduction, l.out);
}

// SigmoidCrossEntropyWithLogitsV2 (predict, target, optional weight and pos_weight; attribute reduction).
aclError SigmoidCrossEntropyWithLogits(const OpCall& call) {
  if (aclError s = call.Arity(2, 4, 1)) return s;
  AclnnObjects o(call);
  Loss l;
  if (aclError s = ReadLoss(call, o, "predict", "target", &l)) return s;
  aclTensor* weight = call.inputs.size() > 2 ? o.Tensor(call.inputs[2], "weight") : nullptr;
  aclTensor* pos_weight = call.inputs.size() > 3 ? o.Tensor(call.inputs[3], "pos_weight") : nullptr;
  if (o.status()) return o.status();
  return Aclnn<BceWithLogitsApi>(call, "aclnnBinaryCrossEntropyWithLogits", l.first, l.second, weight, pos_weight,
                                 l.reduction, l.out);
}

}  // namespace

aclError PlanMirrorPad(const OpCall& call, const std::vector<int64_t>& dims, const std::vector<int64_t>& paddings,
                      bool reflect, MirrorPadPlan* plan) {
  const size_t rank = dims.size();
  if (paddings.size() != 2 * rank) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "paddings " + ListText(paddings) + " are not two per dimension of x " +
                                                       ListText(dims));
  }
  const bool contiguous = call.type == "MirrorPad" || call.Bool("paddings_contiguous", true);
  auto begin = [&](size_t d) { return contiguous ? paddings[2 * d] : paddings[d]; };
  auto end = [&](size_t d) { return contiguous ? paddings[2 * d + 1] : paddings[rank + d]; };
  size_t padded = 0;  // how many trailing dimensions are padded
  for (size_t d = 0; d < rank; ++d) {
    if (begin(d) != 0 || end(d) != 0) {
      padded = rank - d;
      break;
    }
  }
  // The API pads `spatial` trailing dimensions of an input of spatial + 1 or spatial + 2 dimensions.
  const size_t spatial = std::max<size_t>({padded, rank >= 2 ? rank - 2 : 1, 1});
  if (spatial > 3 || spatial + 1 > rank) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "paddings " + ListText(paddings) + " of x " + ListText(dims) +
                                                       ": padding more than the last 3 dimensions, or every dimension, is "
                                                       "not modelled");
  }
  plan->pad.clear();
  for (size_t d = rank; d-- > rank - spatial;) {
    plan->pad.push_back(begin(d));
    plan->pad.push_back(end(d));
  }
  plan->api = std::string(reflect ? "aclnnReflectionPad" : "aclnnReplicationPad") + std::to_string(spatial) + "d";
  return ACL_SUCCESS;
}

aclError ReadMirrorPadMode(const OpCall& call, bool* reflect) {
  const bool mirror_pad = call.type == "MirrorPad";
  const std::string mode = call.String("mode", mirror_pad ? "" : call.type == "PadV3" ? "constant" : "reflect");
  *reflect = mode == "REFLECT" || (!mirror_pad && mode == "reflect");
  if (!*reflect && !(!mirror_pad && mode == "edge")) {
    const char* modelled = mirror_pad ? "REFLECT is" : call.type == "PadV3" ? "constant, reflect and edge are"
                                                                            : "reflect and edge are";
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute mode = \"" + mode + "\" is not modelled (" + modelled + ")");
  }
  return ACL_SUCCESS;
}

// MirrorPad (x, paddings; attribute mode "REFLECT") and PadV3 in modes "reflect" and "edge", by
// the plan of PlanMirrorPad.
aclError RunMirrorOrEdgePad(const OpCall& call) {
  if (aclError s = call.Arity(2, call.type == "PadV3" ? 3 : 2, 1)) return s;
  bool reflect = false;
  if (aclError s = ReadMirrorPadMode(call, &reflect)) return s;
  std::vector<int64_t> paddings;
  if (aclError s = call.ConstInts(1, "paddings", &paddings)) return s;
  MirrorPadPlan plan;
  if (aclError s = PlanMirrorPad(call, call.inputs[0].desc->dims, paddings, reflect, &plan)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<WithIntsApi>(call, plan.api, x, o.Ints(plan.pad), y);
}

namespace {

// AdaptiveAvgPool2d (x; attribute output_size [H, W]) over the last two dimensions.
aclError AdaptiveAvgPool2d(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t> size = call.Ints("output_size");
  if (size.size() != 2) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute output_size = " + ListText(size) + " is not [H, W]");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<WithIntsApi>(call, "aclnnAdaptiveAvgPool2d", x, o.Ints(size), y);
}

// Cross (x1, x2; attribute dim, whose default -65530 means the first dimension of size 3, as
// torch.cross without dim).
aclError Cross(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  constexpr int64_t kFirstOfSizeThree = -65530;
  int64_t dim = call.Int("dim", kFirstOfSizeThree);
  if (dim == kFirstOfSizeThree) {
    const std::vector<int64_t>& dims = call.outputs[0].desc->dims;
    auto three = std::find(dims.begin(), dims.end(), 3);
    if (three == dims.end()) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "y " + ListText(dims) + " has no dimension of size 3");
    dim = three - dims.begin();
  }
  AclnnObjects o(call);
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<CrossApi>(call, "aclnnLinalgCross", x1, x2, dim, y);
}

// Cummax (x; attribute dim) and Cummin (x; attribute axis) to the running extremes and their indices.
aclError CumExtreme(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 2)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* indices = o.Tensor(call.outputs[1], "indices");
  if (o.status()) return o.status();
  return Aclnn<CumApi>(call, call.type == "Cummax" ? "aclnnCummax" : "aclnnCummin", x,
                           call.Int(call.type == "Cummax" ? "dim" : "axis", 0), y, indices);
}

// CeluV2 (x; attribute alpha).
aclError Celu(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<WithScalarApi>(call, "aclnnCelu", x, o.Scalar(call.Float("alpha", 1.0f), ACL_FLOAT), y);
}

// GroupNorm (x [N, C, ...], gamma, beta; attributes num_groups, eps, is_training) to y and each
// group's mean and variance: aclnnGroupNorm's rstd becomes the variance, rstd^-2 - eps, in stream
// order (as LayerNorm's, math.cpp). The channels are x's dimension 1, as torch_npu lays x out (it
// leaves data_format unset, whose prototype default is "NHWC"; a data_format it sets other than
// NCHW is refused). Evaluation mode (is_training false) is not modelled.
aclError GroupNorm(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 3)) return s;
  if (call.Has("data_format") && call.String("data_format", "") != "NCHW") {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute data_format = \"" + call.String("data_format", "") +
                                                      "\" is not modelled (NCHW is)");
  }
  if (!call.Bool("is_training", true)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute is_training = false is not modelled");
  }
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() < 2) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(dims) + " has no channel dimension");
  const int64_t n = dims[0], c = dims[1], hw = Elements(dims) / std::max<int64_t>(n * c, 1);
  const int64_t groups = call.Int("num_groups", 0);
  const double eps = static_cast<double>(call.Float("eps", 1e-4f));
  return NormWithVariance(call, eps, [&](AclnnObjects&, aclTensor* x, aclTensor* gamma, aclTensor* beta, aclTensor* y,
                                          aclTensor* mean, aclTensor* rstd) {
    return Aclnn<GroupNormApi>(call, "aclnnGroupNorm", x, gamma, beta, n, c, hw, groups, eps, y, mean, rstd);
  });
}

// --- distances ---------------------------------------------------------------------------------

// Pdist (x [N, M]; attribute p): the p-norm distance of every pair of rows i < j, in order,
// aclnnPdist (which refuses a negative or NaN p, as its page does).
aclError Pdist(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<PdistApi>(call, "aclnnPdist", x, call.Float("p", 2.0f), y);
}

// Cdist (x1, x2 of one shape [..., P, R, M]: op-plugin expands x1 along R and x2 along P, as the
// call's shapes show, [5,5,6,2] and [5,5,6,2] to y [5,5,6]; attribute p): y = the p-norm of x1 - x2
// over M, cdist's ||x1_i - x2_j||_p (p = 0 counts the non-zero differences, p = inf takes the
// largest: torch.cdist's p in [0, inf]). aclnnCdist's page excludes Atlas training products, so the
// difference goes to scratch (aclnnSub) and aclnnNorm takes its norm over the last dimension.
aclError Cdist(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (call.inputs[1].desc->dims != dims || dims.size() < 3) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x1 " + ListText(dims) + " and x2 " + ListText(call.inputs[1].desc->dims) +
                                                       " are not of one broadcast shape [..., P, R, M]");
  }
  const float p = call.Float("p", 2.0f);
  if (!(p >= 0)) {
    // torch_npu sends -1 for cdist's p = inf (seen in this refusal); that the operator reads a
    // negative p so is not in the documentation on hand.
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute p = " + std::to_string(p) +
                                                      " is not in [0, inf] (what the operator does with a negative p "
                                                      "is not documented)");
  }
  AclnnObjects o(call);
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* difference = o.Scratch(call.inputs[0].desc->dtype, dims);
  aclScalar* one = o.Scalar(1.0, ACL_FLOAT);
  aclScalar* order = o.Scalar(p, ACL_FLOAT);
  if (o.status()) return o.status();
  if (aclError s = Aclnn<SubApi>(call, "aclnnSub", x1, x2, one, difference)) return s;
  return Aclnn<NormApi>(call, "aclnnNorm", difference, order, o.Ints({-1}), false, y);
}

// CTCLossV2 (log_probs [T, N, C], targets, input_lengths, target_lengths; attributes blank,
// zero_infinity) to neg_log_likelihood [N] and log_alpha: aten's _ctc_loss, by aclnnCtcLoss, whose
// page gives log_alpha the width torch_npu allocates ((2 * max(target_lengths) + 8) / 8 * 8). The
// reduction attribute (the prototype's, default "mean") is refused when set: the outputs are
// per-sample, and torch_npu reduces them itself.
aclError CtcLoss(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 2)) return s;
  CtcArguments ctc;
  if (aclError s = ReadCtcArguments(call, 0, 2, &ctc)) return s;
  AclnnObjects o(call);
  aclTensor* log_probs = o.Tensor(call.inputs[0], "log_probs");
  aclTensor* targets = o.Tensor(call.inputs[1], "targets");
  aclTensor* nll = o.Tensor(call.outputs[0], "neg_log_likelihood");
  aclTensor* log_alpha = o.Tensor(call.outputs[1], "log_alpha");
  if (o.status()) return o.status();
  return Aclnn<CtcLossApi>(call, "aclnnCtcLoss", log_probs, targets, o.Ints(ctc.input_lengths), o.Ints(ctc.target_lengths),
                           ctc.blank, call.Bool("zero_infinity", false), nll, log_alpha);
}

// EmbeddingBag (weight, indices, optional offsets and per_sample_weights; attributes mode,
// scale_grad_by_freq, sparse, include_last_offset, padding_idx) to y, offset2bag, bag_size and
// max_indices: aten's _embedding_bag, by aclnnEmbeddingBag, which numbers the modes as aten does
// (sum, mean, max) and checks the rest (its kernel refuses max by name).
aclError EmbeddingBag(const OpCall& call) {
  if (aclError s = call.Arity(2, 4, 4)) return s;
  int64_t mode = 0;
  if (aclError s = call.Choice("mode", "mean", {"sum", "mean", "max"}, &mode)) return s;
  AclnnObjects o(call);
  aclTensor* weight = o.Tensor(call.inputs[0], "weight");
  aclTensor* indices = o.Tensor(call.inputs[1], "indices");
  aclTensor* offsets = call.inputs.size() > 2 ? o.Tensor(call.inputs[2], "offsets") : nullptr;
  aclTensor* per_sample = call.inputs.size() > 3 ? o.Tensor(call.inputs[3], "per_sample_weights") : nullptr;
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* offset2bag = o.Tensor(call.outputs[1], "offset2bag");
  aclTensor* bag_size = o.Tensor(call.outputs[2], "bag_size");
  aclTensor* max_indices = o.Tensor(call.outputs[3], "max_indices");
  if (o.status()) return o.status();
  return Aclnn<EmbeddingBagApi>(call, "aclnnEmbeddingBag", weight, indices, offsets, call.Bool("scale_grad_by_freq", false),
                                mode, call.Bool("sparse", false), per_sample, call.Bool("include_last_offset", false),
                                call.Int("padding_idx", -1), y, offset2bag, bag_size, max_indices);
}

// MultilabelMarginLoss (x [N, C] or [C], target of x's shape; attribute reduction) to y and
// is_target: aclnnMultilabelMarginLoss, whose isTarget is in x's dtype (its page) where torch_npu's
// is INT64, so it goes through scratch and aclnnCast. A 0-d x is one class, [1], as PyTorch reads it
// (aten's multilabel_margin_loss_shape_check).
aclError MultilabelMarginLoss(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 2)) return s;
  int64_t mode = 0;
  if (aclError s = call.Choice("reduction", "mean", kReductions, &mode)) return s;
  const OpTensorDesc& x_desc = *call.inputs[0].desc;
  const std::vector<int64_t> dims = x_desc.dims.empty() ? std::vector<int64_t>{1} : x_desc.dims;
  const bool is_target_cast = call.outputs[1].desc->dtype != x_desc.dtype;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x", dims);
  aclTensor* target = o.Tensor(call.inputs[1], "target", dims);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* is_target = o.Tensor(call.outputs[1], "is_target", dims);
  aclTensor* is_target_in_x_dtype = is_target_cast ? o.Scratch(x_desc.dtype, dims) : is_target;
  if (o.status()) return o.status();
  if (aclError s = Aclnn<MultilabelMarginLossApi>(call, "aclnnMultilabelMarginLoss", x, target, mode, y, is_target_in_x_dtype)) {
    return s;
  }
  if (!is_target_cast) return ACL_SUCCESS;
  return Aclnn<CastApi>(call, "aclnnCast", is_target_in_x_dtype, call.outputs[1].desc->dtype, is_target);
}

// --- host kernels -------------------------------------------------------------------------------

// Renorm (x; attributes p, dim, maxnorm): not the renormed tensor but its per-slice factor, as
// torch_npu reads it (it multiplies x by y broadcast: acl_op renorm, embedding's max_norm): y has x's
// shape with 1 in every dimension but dim, each element maxnorm / (norm + 1e-7) where the p-norm of
// x's slice at that index exceeds maxnorm, else 1 (aten's renorm factor). A host kernel: no aclnn
// API returns the factor alone.
aclError Renorm(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t dim = call.Int("dim", 0);
  if (dim < 0) dim += rank;
  const float p = call.Float("p", 2.0f), maxnorm = call.Float("maxnorm", 0.0f);
  if (dim < 0 || dim >= rank) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "dim " + std::to_string(call.Int("dim", 0)) + " of x " + ListText(dims));
  if (!(p > 0)) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "p = " + std::to_string(p) + " is not modelled (p > 0 is)");
  std::vector<int64_t> factor_shape(dims.size(), 1);
  factor_shape[static_cast<size_t>(dim)] = dims[static_cast<size_t>(dim)];
  if (call.outputs[0].desc->dims != factor_shape || !PlainFormat(call.inputs[0].desc->format) ||
      !PlainFormat(call.outputs[0].desc->format)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "y " + ListText(call.outputs[0].desc->dims) +
                                                        " is not the plain factor shape " + ListText(factor_shape) + " of x " +
                                                        ListText(dims));
  }
  Floats x, y;
  if (aclError s = FloatsOf(call, call.inputs[0], "x", &x)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "y", &y)) return s;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= dims[static_cast<size_t>(i)];
  for (int64_t i = dim + 1; i < rank; ++i) inner *= dims[static_cast<size_t>(i)];
  const int64_t slices = dims[static_cast<size_t>(dim)];
  return Launch(call, [=] {
    for (int64_t k = 0; k < slices; ++k) {
      double sum = 0;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const double v = std::fabs(static_cast<double>(x[(o * slices + k) * inner + i]));
          sum = std::isinf(p) ? std::max(sum, v) : sum + std::pow(v, static_cast<double>(p));
        }
      }
      const double norm = std::isinf(p) ? sum : std::pow(sum, 1.0 / static_cast<double>(p));
      y.Set(k, norm > maxnorm ? static_cast<float>(maxnorm / (norm + 1e-7)) : 1.0f);
    }
  });
}

}  // namespace

aclError ReadCtcArguments(const OpCall& call, size_t log_probs, size_t lengths, CtcArguments* ctc) {
  if (aclError s = call.ConstInts(lengths, "input_lengths", &ctc->input_lengths)) return s;
  if (aclError s = call.ConstInts(lengths + 1, "target_lengths", &ctc->target_lengths)) return s;
  const std::vector<int64_t>& dims = call.inputs[log_probs].desc->dims;
  const int64_t classes = dims.empty() ? 0 : dims.back();
  const int64_t longest = ctc->target_lengths.empty() ? 0 : *std::max_element(ctc->target_lengths.begin(), ctc->target_lengths.end());
  // torch_npu 2.13.0 sets blank to blank + C * max(target_lengths) (seen at its aclopSetAttrInt call,
  // the product computed just before it: 15 for blank 0, C 5 and longest target 3, 17 for blank 2),
  // which carries the longest target the padded log_alpha's width no longer tells; the blank is the
  // remainder. A value below C is the blank itself, as the prototype reads it (the two agree when
  // every target is empty); any other value is refused naming it.
  const int64_t attribute = call.Int("blank", 0);
  if (attribute >= 0 && attribute < classes) {
    ctc->blank = attribute;
  } else if (classes > 0 && attribute >= 0 && attribute / classes == longest) {
    ctc->blank = attribute % classes;
  } else {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute blank = " + std::to_string(attribute) + " is neither a class of C = " +
                                                      std::to_string(classes) + " nor blank + C * max(target_lengths) = blank + " +
                                                      std::to_string(classes * longest));
  }
  return ACL_SUCCESS;
}

const std::vector<OpEntry>& NnEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = [] {
    std::vector<OpEntry> all = {
        {"LpLoss", {{"p", K::kInt}, {"reduction", K::kString}}, LpLoss},
        {"SmoothL1LossV2", {{"sigma", K::kFloat}, {"reduction", K::kString}}, SmoothL1Loss},
        {"SoftMarginLoss", {{"reduction", K::kString}}, SoftMarginLoss},
        {"KLDiv", {{"reduction", K::kString}, {"log_target", K::kBool}}, KlDiv},
        {"BinaryCrossEntropy", {{"reduction", K::kString}}, BinaryCrossEntropy},
        {"SigmoidCrossEntropyWithLogitsV2", {{"reduction", K::kString}}, SigmoidCrossEntropyWithLogits},
        {"MirrorPad", {{"mode", K::kString}}, RunMirrorOrEdgePad},
        {"AdaptiveAvgPool2d", {{"output_size", K::kListInt}}, AdaptiveAvgPool2d},
        {"Cross", {{"dim", K::kInt}}, Cross},
        {"Cummax", {{"dim", K::kInt}}, CumExtreme},
        {"Cummin", {{"axis", K::kInt}}, CumExtreme},
        {"CeluV2", {{"alpha", K::kFloat}}, Celu},
        {"GroupNorm", {{"num_groups", K::kInt}, {"data_format", K::kString}, {"eps", K::kFloat}, {"is_training", K::kBool}},
         GroupNorm},
        {"NonZero", {{"transpose", K::kBool}}, NonZero},
        {"Index", {{"_exclude_engines", K::kString}}, Index},
        {"ResizeNearestNeighborV2", {{"align_corners", K::kBool}, {"half_pixel_centers", K::kBool}}, ResizeNearest},
        {"ResizeBilinearV2", {{"align_corners", K::kBool}, {"half_pixel_centers", K::kBool}, {"dtype", K::kDataType}},
         ResizeBilinear},
        // roi and scales arrive as lists of float (the prototype declares roi ListInt).
        {"ResizeD",
         {{"sizes", K::kListInt}, {"scales", K::kListFloat}, {"roi", K::kListFloat},
          {"coordinate_transformation_mode", K::kString}, {"cubic_coeff_a", K::kFloat}, {"exclude_outside", K::kInt},
          {"extrapolation_value", K::kFloat}, {"mode", K::kString}, {"nearest_mode", K::kString}},
         ResizeD},
        {"GridSampler2D", {{"interpolation_mode", K::kString}, {"padding_mode", K::kString}, {"align_corners", K::kBool}},
         GridSampler},
        {"GridSampler3D",
         {{"interpolation_mode", K::kString}, {"padding_mode", K::kString}, {"data_format", K::kString}, {"align_corners", K::kBool}},
         GridSampler},
        {"AffineGrid", {{"align_corners", K::kBool}}, AffineGrid},
        {"FillDiagonal", {{"fill_value", K::kFloat}, {"wrap", K::kBool}}, FillDiagonal},
        // _exclude_engines: op-plugin's hint to the graph compiler of which engine not to run it on.
        {"IndexPutV2", {{"accumulate", K::kBool}, {"_exclude_engines", K::kString}}, IndexPutV2},
        {"Pdist", {{"p", K::kFloat}}, Pdist},
        {"Cdist", {{"p", K::kFloat}}, Cdist},
        {"MultilabelMarginLoss", {{"reduction", K::kString}}, MultilabelMarginLoss},
        {"CTCLossV2", {{"blank", K::kInt}, {"zero_infinity", K::kBool}}, CtcLoss},
        {"UniqueWithCountsExt2", {{"return_inverse", K::kBool}, {"sorted", K::kBool}}, UniqueDim},
        {"EmbeddingBag",
         {{"mode", K::kString}, {"scale_grad_by_freq", K::kBool}, {"sparse", K::kBool}, {"include_last_offset", K::kBool},
          {"padding_idx", K::kInt}},
         EmbeddingBag},
        {"ScatterNdAdd", {{"use_locking", K::kBool}}, [](const OpCall& c) { return ScatterNd(c, true); }},
        {"ScatterNdUpdate", {{"use_locking", K::kBool}}, [](const OpCall& c) { return ScatterNd(c, false); }},
        {"MaskedSelect", {}, MaskedSelect},
        {"Im2col",
         {{"ksizes", K::kListInt}, {"strides", K::kListInt}, {"dilations", K::kListInt}, {"padding_mode", K::kString},
          {"pads", K::kListInt}},
         Im2col},
        {"Col2im", {{"kernel_size", K::kListInt}, {"dilation", K::kListInt}, {"padding", K::kListInt}, {"stride", K::kListInt}},
         Col2im},
        {"AvgPool3D",
         {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"pads", K::kListInt}, {"ceil_mode", K::kBool},
          {"count_include_pad", K::kBool}, {"divisor_override", K::kInt}, {"data_format", K::kString}},
         AvgPool3D},
        {"AvgPool3DGrad",
         {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"pads", K::kListInt}, {"ceil_mode", K::kBool},
          {"count_include_pad", K::kBool}, {"divisor_override", K::kInt}, {"data_format", K::kString}},
         AvgPool3DGrad},
        {"UpsampleNearest3d", {{"output_size", K::kListInt}, {"scales", K::kListFloat}}, Upsample3d},
        {"UpsampleTrilinear3d", {{"output_size", K::kListInt}, {"scales", K::kListFloat}, {"align_corners", K::kBool}}, Upsample3d},
        {"UpsampleNearest3dGrad", {{"input_size", K::kListInt}, {"output_size", K::kListInt}, {"scales", K::kListFloat}},
         Upsample3d},
        {"UpsampleTrilinear3dGrad",
         {{"input_size", K::kListInt}, {"output_size", K::kListInt}, {"scales", K::kListFloat}, {"align_corners", K::kBool}},
         Upsample3d},
        {"MaxPool3D",
         {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"pads", K::kListInt}, {"dilation", K::kListInt},
          {"ceil_mode", K::kInt}, {"padding", K::kString}, {"data_format", K::kString}},
         MaxPool3D},
        {"MaxPool3DGrad",
         {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"pads", K::kListInt}, {"dilation", K::kListInt},
          {"ceil_mode", K::kInt}, {"padding", K::kString}, {"data_format", K::kString}},
         MaxPool3DGrad},
        {"Renorm", {{"p", K::kFloat}, {"dim", K::kInt}, {"maxnorm", K::kFloat}}, Renorm},
        {"MaxPoolWithArgmaxV1", {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"pads", K::kListInt}, {"dtype", K::kInt}, {"dilation", K::kListInt}, {"ceil_mode", K::kBool}}, MaxPoolWithArgmaxV1},
        {"MaxPoolGradWithArgmaxV1",
         {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"pads", K::kListInt}, {"dtype", K::kInt}, {"dilation", K::kListInt},
          {"dilations", K::kListInt}, {"ceil_mode", K::kBool}},
         MaxPoolGradWithArgmaxV1},
        {"UniqueWithCountsAndSorting",
         {{"return_inverse", K::kBool}, {"return_counts", K::kBool}, {"sorted", K::kBool}},
         Unique},
        {"UniqueConsecutive", {{"return_idx", K::kBool}, {"return_counts", K::kBool}, {"axis", K::kInt}}, Unique},
        {"Xlogy", {}, [](const OpCall& call) -> aclError {
           if (aclError s = call.Arity(2, 2, 1)) return s;
           AclnnObjects o(call);
           aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
           aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
           aclTensor* y = o.Tensor(call.outputs[0], "y");
           if (o.status()) return o.status();
           return Aclnn<BinaryApi>(call, "aclnnXLogYTensor", x1, x2, y);
         }},
        {"Erfinv", {}, [](const OpCall& call) -> aclError {
           if (aclError s = call.Arity(1, 1, 1)) return s;
           AclnnObjects o(call);
           aclTensor* x = o.Tensor(call.inputs[0], "x");
           aclTensor* y = o.Tensor(call.outputs[0], "y");
           if (o.status()) return o.status();
           return Aclnn<UnaryApi>(call, "aclnnErfinv", x, y);
         }},
    };
    // Their aclop kernels exist on every chip that runs aclop (as the common math operators').
    for (OpEntry& entry : all) entry.every_chip = true;
    for (OpEntry& entry : all) entry.data_shaped = entry.run == NonZero || entry.run == MaskedSelect || entry.run == Unique || entry.run == UniqueDim;
    return all;
  }();
  return entries;
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnL1Loss, LossApi);
ACLOP_SAME(aclnnSmoothL1Loss, SmoothL1LossApi);
ACLOP_SAME(aclnnKlDiv, KlDivApi);
ACLOP_SAME(aclnnBinaryCrossEntropy, BceApi);
ACLOP_SAME(aclnnBinaryCrossEntropyWithLogits, BceWithLogitsApi);
ACLOP_SAME(aclnnAdaptiveAvgPool2d, WithIntsApi);
ACLOP_SAME(aclnnLinalgCross, CrossApi);
ACLOP_SAME(aclnnCummax, CumApi);
ACLOP_SAME(aclnnGroupNorm, GroupNormApi);
ACLOP_SAME(aclnnSoftMarginLoss, SoftMarginLossApi);
ACLOP_SAME(aclnnCelu, WithScalarApi);
ACLOP_SAME(aclnnPdist, PdistApi);
ACLOP_SAME(aclnnNorm, NormApi);
ACLOP_SAME(aclnnCtcLoss, CtcLossApi);
ACLOP_SAME(aclnnEmbeddingBag, EmbeddingBagApi);
ACLOP_SAME(aclnnMultilabelMarginLoss, MultilabelMarginLossApi);
ACLOP_SAME(aclnnSub, SubApi);
ACLOP_SAME(aclnnCast, CastApi);
ACLOP_SAME(aclnnErfinv, UnaryApi);
ACLOP_SAME(aclnnXLogYTensor, BinaryApi);
ACLOP_SAME(aclnnCummin, CumApi);
