// The aclop bridge's vision operators, which no aclnn API computes: Iou, GIoU, DIoU, CIoU, GIoUGrad,
// DIoUGrad, NonMaxSuppressionV4, BatchMultiClassNonMaxSuppression, PSROIPoolingV2,
// PSROIPoolingGradV2D, ROIAlign, ROIAlignGrad, DeformableOffsets, BoundingBoxEncode,
// BoundingBoxDecode, AnchorResponseFlags, YoloBoxesEncode and SubSample (torch_npu's npu_iou, npu_ptiou,
// npu_giou, npu_diou, npu_ciou, the backward of npu_giou and npu_diou, npu_nms_v4, npu_batch_nms,
// npu_ps_roi_pooling and its backward, npu_roi_align, npu_roi_alignbk, npu_deformable_conv2d,
// npu_bounding_box_encode, npu_bounding_box_decode, npu_anchor_response_flags,
// npu_yolo_boxes_encode and npu_sub_sample run them by type name).
// Their shapes, dtypes and attributes are checked when the call is made; the arithmetic runs in
// stream order (aclrtLaunchHostFunc) in float, the float16 and bfloat16 operands converted on the
// way in and out. The formulas are the operators' documented ones (CANN's operator prototypes, the
// papers and libraries they cite); where a detail is not documented the reading taken is said where
// it is used.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/boxes.h"
#include "common/dtypes.h"
#include "common/internal.h"
#include "common/roi_align.h"
#include "op_compiler/bridge.h"
#include "op_compiler/host_kernel.h"

namespace aclsim::aclop {

namespace {

// The overlap formulas (common/boxes.h, which aclnnIou and aclnnCIoU share); coordinates are float,
// or Dual where a gradient is taken.
using boxes::Area;
using boxes::Box;
using boxes::BoxOf;
using boxes::CompleteIou;
using boxes::DistanceIou;
using boxes::GeneralisedIou;
using boxes::Intersection;
using boxes::Max;
using boxes::Min;
using boxes::PixelIou;
using boxes::RowBox;
using boxes::Value;

// A value with its derivatives with respect to a formula's N inputs (forward-mode
// differentiation): the overlap operators' gradients (GIoUGrad, DIoUGrad) are the derivatives of
// the very code their forward operators run, so the two cannot drift apart.
template <int N>
struct Dual {
  float v = 0.0f;
  std::array<float, N> d{};
};
template <int N>
Dual<N> operator+(Dual<N> a, const Dual<N>& b) {
  a.v += b.v;
  for (int i = 0; i < N; ++i) a.d[i] += b.d[i];
  return a;
}
template <int N>
Dual<N> operator-(Dual<N> a, const Dual<N>& b) {
  a.v -= b.v;
  for (int i = 0; i < N; ++i) a.d[i] -= b.d[i];
  return a;
}
template <int N>
Dual<N> operator*(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r{a.v * b.v, {}};
  for (int i = 0; i < N; ++i) r.d[i] = a.d[i] * b.v + b.d[i] * a.v;
  return r;
}
template <int N>
Dual<N> operator/(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r{a.v / b.v, {}};
  for (int i = 0; i < N; ++i) r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
  return r;
}
template <int N>
Dual<N> operator/(Dual<N> a, float b) {
  a.v /= b;
  for (int i = 0; i < N; ++i) a.d[i] /= b;
  return a;
}
// boxes::Max and boxes::Min find it by argument-dependent lookup.
template <int N>
float Value(const Dual<N>& x) {
  return x.v;
}

// Iou's and GIoU's operands: the two sets of boxes and the overlap they write, read as float.
aclError BoxOperands(const OpCall& call, Floats* boxes, Floats* gt, Floats* overlap) {
  if (aclError s = FloatsOf(call, call.inputs[0], "bboxes", boxes)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "gtboxes", gt)) return s;
  return FloatsOf(call, call.outputs[0], "overlap", overlap);
}

// Iou: the overlap of every pair of bboxes [N, 4] and gtboxes [M, 4] (x1, y1, x2, y2), y [M, N]:
// intersection over union ("iou") or over the ground-truth box's area ("iof"), eps the pixel offset
// (PixelIou).
aclError Iou(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const std::string mode = call.String("mode", "iou");
  if (mode != "iou" && mode != "iof") {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute mode = \"" + mode + "\" (\"iou\" or \"iof\")");
  }
  const float eps = call.Float("eps", 1.0f);
  Floats boxes, gt, y;
  if (aclError s = BoxOperands(call, &boxes, &gt, &y)) return s;
  const std::vector<int64_t>& b_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& g_dims = call.inputs[1].desc->dims;
  if (b_dims.size() != 2 || b_dims[1] != 4 || g_dims.size() != 2 || g_dims[1] != 4) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "bboxes " + ListText(b_dims) + " and gtboxes " + ListText(g_dims) +
                                                       " are not [N, 4] and [M, 4]");
  }
  const int64_t n = b_dims[0], m = g_dims[0];
  if (aclError s = Shape(call, call.outputs[0], "overlap", {m, n})) return s;
  const bool iof = mode == "iof";
  return Launch(call, [=] {
    auto box = [](const Floats& f, int64_t i) { return Box{f[i * 4], f[i * 4 + 1], f[i * 4 + 2], f[i * 4 + 3]}; };
    for (int64_t j = 0; j < m; ++j) {
      for (int64_t i = 0; i < n; ++i) y.Set(j * n + i, PixelIou(box(boxes, i), box(gt, j), eps, iof));
    }
  });
}

// The overlap operators of boxes given by coordinate rows (GIoU, DIoU, CIoU): bboxes [4, N] and
// gtboxes [4, M], (x1, y1, x2, y2) or, when `trans`, (centre x, centre y, width, height). is_cross:
// every pair, y [M, N]; else box i with gtbox i, y [1, N]. Only mode "iou" is modelled: what
// "iof" divides the penalty terms by is not documented. `metric` maps (box, gtbox) to the value.
aclError RowBoxOverlaps(const OpCall& call, size_t outputs, std::function<void(const Box&, const Box&, float*)> metric) {
  if (aclError s = call.Arity(2, 2, outputs)) return s;
  const std::string mode = call.String("mode", "iou");
  if (mode != "iou") return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute mode = \"" + mode + "\" is not modelled (\"iou\")");
  const bool trans = call.Bool("trans", false), cross = call.Bool("is_cross", true);
  Floats boxes, gt, y, extra;
  if (aclError s = BoxOperands(call, &boxes, &gt, &y)) return s;
  const std::vector<int64_t>& b_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& g_dims = call.inputs[1].desc->dims;
  if (b_dims.size() != 2 || b_dims[0] != 4 || g_dims.size() != 2 || g_dims[0] != 4 || (!cross && b_dims[1] != g_dims[1])) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "bboxes " + ListText(b_dims) + " and gtboxes " + ListText(g_dims) +
                                                       " are not [4, N] and [4, M]" + (cross ? "" : " with M = N (is_cross false)"));
  }
  const int64_t n = b_dims[1], m = g_dims[1];
  if (aclError s = Shape(call, call.outputs[0], "overlap", {cross ? m : 1, n})) return s;
  if (outputs == 2) {
    if (aclError s = FloatsOf(call, call.outputs[1], "atan_sub", &extra)) return s;
    if (aclError s = Shape(call, call.outputs[1], "atan_sub", {cross ? m : 1, n})) return s;
  }
  return Launch(call, [=] {
    auto box = [trans](const Floats& f, int64_t count, int64_t i) {
      return RowBox(f[i], f[count + i], f[2 * count + i], f[3 * count + i], trans);
    };
    for (int64_t j = 0; j < (cross ? m : 1); ++j) {
      for (int64_t i = 0; i < n; ++i) {
        float values[2] = {0.0f, 0.0f};
        metric(box(boxes, n, i), box(gt, m, cross ? j : i), values);
        y.Set(j * n + i, values[0]);
        if (extra.data) extra.Set(j * n + i, values[1]);
      }
    }
  });
}

// GIoU: generalised IoU.
aclError GIoU(const OpCall& call) {
  return RowBoxOverlaps(call, 1, [](const Box& p, const Box& q, float* out) { out[0] = GeneralisedIou(p, q); });
}

// DIoU: distance IoU (Zheng et al., 2020).
aclError DIoU(const OpCall& call) {
  return RowBoxOverlaps(call, 1, [](const Box& p, const Box& q, float* out) { out[0] = DistanceIou(p, q); });
}

// GIoUGrad and DIoUGrad: the gradients of GIoU and DIoU with is_cross false (box i with gtbox i),
// what torch_npu's npu_giou and npu_diou backward send: dy [N] (the overlaps' gradient), bboxes and
// gtboxes [4, N] as the forward read them -> dbboxes and dgtboxes [4, N], dy times the derivative
// of the forward's value with respect to each coordinate row (the centre and size rows when
// trans), by forward-mode differentiation (Dual) of the forward's own formula `metric`.
template <typename Metric>
aclError OverlapGrad(const OpCall& call, Metric metric) {
  if (aclError s = call.Arity(3, 3, 2)) return s;
  const std::string mode = call.String("mode", "iou");
  if (mode != "iou") return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute mode = \"" + mode + "\" is not modelled (\"iou\")");
  // is_cross defaults to true in the prototype (as the forward's): only an explicit false is modelled
  if (call.Bool("is_cross", true)) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute is_cross = true is not modelled (false)");
  const bool trans = call.Bool("trans", false);
  Floats dy, boxes, gt, d_boxes, d_gt;
  if (aclError s = FloatsOf(call, call.inputs[0], "dy", &dy)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "bboxes", &boxes)) return s;
  if (aclError s = FloatsOf(call, call.inputs[2], "gtboxes", &gt)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "dbboxes", &d_boxes)) return s;
  if (aclError s = FloatsOf(call, call.outputs[1], "dgtboxes", &d_gt)) return s;
  const std::vector<int64_t>& dims = call.inputs[1].desc->dims;
  if (dims.size() != 2 || dims[0] != 4) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "bboxes " + ListText(dims) + " is not [4, N]");
  const int64_t n = dims[1];
  if (Elements(call.inputs[0].desc->dims) != n) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "dy " + ListText(call.inputs[0].desc->dims) + " does not hold N = " +
                                                       std::to_string(n) + " values");
  }
  if (aclError s = Shape(call, call.inputs[2], "gtboxes", dims)) return s;
  if (aclError s = Shape(call, call.outputs[0], "dbboxes", dims)) return s;
  if (aclError s = Shape(call, call.outputs[1], "dgtboxes", dims)) return s;
  return Launch(call, [=] {
    using D = Dual<8>;
    for (int64_t i = 0; i < n; ++i) {
      D rows[8];
      for (int k = 0; k < 8; ++k) {
        rows[k].v = (k < 4 ? boxes : gt)[(k % 4) * n + i];
        rows[k].d[k] = 1.0f;
      }
      const D value = metric(RowBox(rows[0], rows[1], rows[2], rows[3], trans), RowBox(rows[4], rows[5], rows[6], rows[7], trans));
      for (int k = 0; k < 4; ++k) {
        d_boxes.Set(k * n + i, dy[i] * value.d[k]);
        d_gt.Set(k * n + i, dy[i] * value.d[4 + k]);
      }
    }
  });
}

aclError GIoUGrad(const OpCall& call) {
  return OverlapGrad(call, [](const auto& p, const auto& q) { return GeneralisedIou(p, q); });
}

aclError DIoUGrad(const OpCall& call) {
  return OverlapGrad(call, [](const auto& p, const auto& q) { return DistanceIou(p, q); });
}

// CIoU: complete IoU (CompleteIou) and its second output atan_sub, what CIoUGrad reads.
aclError CIoU(const OpCall& call) {
  return RowBoxOverlaps(call, 2, [](const Box& p, const Box& q, float* out) { out[0] = CompleteIou(p, q, &out[1]); });
}

// The value of a one-element input, which torch_npu passes NonMaxSuppressionV4's limits in device
// memory (OpCall::ConstFloat reads it after the work queued before the call).
aclError ScalarInput(const OpCall& call, size_t input, const char* what, double* value) {
  return call.ConstFloat(input, what, value);
}

// A box of a non-maximum suppression: two corners in either order (TensorFlow's reading), as
// x1 <= x2 and y1 <= y2.
Box Corners(float a, float b, float c, float d) { return Box{std::min(a, c), std::min(b, d), std::max(a, c), std::max(b, d)}; }

// TensorFlow's IoU of two such boxes: 0 when either has no area.
float CornerIou(const Box& p, const Box& q) {
  const float pa = Area(p), qa = Area(q);
  if (pa <= 0 || qa <= 0) return 0.0f;
  const float inter = Intersection(p, q);
  return inter / (pa + qa - inter);
}

// TensorFlow's greedy non-maximum suppression (NonMaxSuppressionV4, and the per-class step of
// BatchMultiClassNonMaxSuppression): the candidates whose score is above score_min, by
// decreasing score (ties: the lower index first), each kept unless its IoU with a box kept before
// it is above iou_max, up to max_out boxes. The indices kept, in that order.
std::vector<int64_t> GreedyNms(int64_t n, const std::function<Box(int64_t)>& box, const std::function<float(int64_t)>& score,
                               float score_min, float iou_max, int64_t max_out) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i) {
    if (score(i) > score_min) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return score(a) > score(b); });
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    if (static_cast<int64_t>(kept.size()) >= max_out) break;
    const Box b = box(i);
    if (std::all_of(kept.begin(), kept.end(), [&](int64_t k) { return CornerIou(box(k), b) <= iou_max; })) kept.push_back(i);
  }
  return kept;
}

// NonMaxSuppressionV4 (TensorFlow's, which the prototype is compatible with): GreedyNms of boxes
// [N, 4] by scores [N] above score_threshold, IoU at most iou_threshold, up to max_output_size
// boxes. selected_indices [max_output_size] holds their indices, then zeros (whether
// pad_to_max_output_size or not: the output's length is the caller's); valid_outputs their number.
aclError NonMaxSuppressionV4(const OpCall& call) {
  if (aclError s = call.Arity(5, 5, 2)) return s;
  Floats boxes, scores;
  if (aclError s = FloatsOf(call, call.inputs[0], "boxes", &boxes)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "scores", &scores)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() != 2 || dims[1] != 4) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "boxes " + ListText(dims) + " is not [N, 4]");
  const int64_t n = dims[0];
  if (aclError s = Shape(call, call.inputs[1], "scores", {n})) return s;
  const Operand &selected = call.outputs[0], &valid = call.outputs[1];
  if (selected.desc->dtype != ACL_INT32 || valid.desc->dtype != ACL_INT32 || selected.desc->dims.size() != 1 ||
      Elements(valid.desc->dims) != 1) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "selected_indices and valid_outputs are not an int32 vector and an int32 scalar");
  }
  const int64_t length = selected.desc->dims[0];
  if (static_cast<size_t>(length) * 4 > selected.buffer->size || valid.buffer->size < 4) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "selected_indices or valid_outputs does not fit its data buffer");
  }
  double limit = 0, iou_threshold = 0, score_threshold = 0;
  if (aclError s = ScalarInput(call, 2, "max_output_size", &limit)) return s;
  if (aclError s = ScalarInput(call, 3, "iou_threshold", &iou_threshold)) return s;
  if (aclError s = ScalarInput(call, 4, "score_threshold", &score_threshold)) return s;
  if (limit < 0 || limit > static_cast<double>(length)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "max_output_size " + std::to_string(static_cast<int64_t>(limit)) +
                                                       " is negative or more than selected_indices holds (" +
                                                       std::to_string(length) + ")");
  }
  if (iou_threshold < 0 || iou_threshold > 1) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "iou_threshold " + std::to_string(iou_threshold) + " is outside [0, 1]");
  }
  auto* out = static_cast<int32_t*>(selected.buffer->data);
  auto* count = static_cast<int32_t*>(valid.buffer->data);
  const auto max_out = static_cast<int64_t>(limit);
  const auto iou_max = static_cast<float>(iou_threshold), score_min = static_cast<float>(score_threshold);
  return Launch(call, [=] {
    const std::vector<int64_t> kept = GreedyNms(
        n, [&](int64_t i) { return Corners(boxes[i * 4], boxes[i * 4 + 1], boxes[i * 4 + 2], boxes[i * 4 + 3]); },
        [&](int64_t i) { return scores[i]; }, score_min, iou_max, max_out);
    for (int64_t i = 0; i < length; ++i) out[i] = i < static_cast<int64_t>(kept.size()) ? static_cast<int32_t>(kept[i]) : 0;
    *count = static_cast<int32_t>(kept.size());
  });
}

// BatchMultiClassNonMaxSuppression: TensorFlow Object Detection API's
// batch_multiclass_non_max_suppression, which the prototype and torch_npu's npu_batch_nms
// describe: boxes [B, N, q, 4] (q = 1: one box per anchor for every class, or q = C), scores
// [B, N, C]. For each image and class, GreedyNms (score above score_threshold, IoU at most
// iou_threshold, up to max_size_per_class boxes); the boxes kept for all classes (class by class)
// then ordered by decreasing score (a stable sort, as tf.nn.top_k) and the first max_total_size
// written: nmsed_boxes [B, T, 4] (the input's coordinates), nmsed_scores [B, T], nmsed_classes [B,
// T] (the class index, as a float), zeros past nmsed_num [B] (INT32), their number. Not modelled:
// transpose_box (boxes laid out [B, N, q, 4] transposed; which dimensions the prototype swaps is
// not documented here) and change_coordinate_frame (the Object Detection API normalises to a clip
// window, which torch_npu does not pass).
aclError BatchMultiClassNonMaxSuppression(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 4)) return s;
  if (call.Bool("transpose_box", false) || call.Bool("change_coordinate_frame", false)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes transpose_box and change_coordinate_frame are modelled false only");
  }
  const float score_min = call.Float("score_threshold", 0.0f), iou_max = call.Float("iou_threshold", 0.0f);
  const int64_t per_class = call.Int("max_size_per_class", 0), total = call.Int("max_total_size", 0);
  if (per_class < 0 || total < 0 || iou_max < 0 || iou_max > 1) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "max_size_per_class " + std::to_string(per_class) + ", max_total_size " +
                                                      std::to_string(total) + " and iou_threshold " + std::to_string(iou_max) +
                                                      " (sizes >= 0, iou_threshold in [0, 1])");
  }
  Floats boxes, scores, out_boxes, out_scores, out_classes;
  if (aclError s = FloatsOf(call, call.inputs[0], "boxes", &boxes)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "scores", &scores)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "nmsed_boxes", &out_boxes)) return s;
  if (aclError s = FloatsOf(call, call.outputs[1], "nmsed_scores", &out_scores)) return s;
  if (aclError s = FloatsOf(call, call.outputs[2], "nmsed_classes", &out_classes)) return s;
  const std::vector<int64_t>& b_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& s_dims = call.inputs[1].desc->dims;
  if (b_dims.size() != 4 || b_dims[3] != 4 || s_dims.size() != 3 || s_dims[0] != b_dims[0] || s_dims[1] != b_dims[1] ||
      (b_dims[2] != 1 && b_dims[2] != s_dims[2])) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "boxes " + ListText(b_dims) + " and scores " + ListText(s_dims) +
                                                       " are not [B, N, q, 4] and [B, N, C] with q = 1 or C");
  }
  const int64_t batch = b_dims[0], n = b_dims[1], q = b_dims[2], classes = s_dims[2];
  if (aclError s = Shape(call, call.outputs[0], "nmsed_boxes", {batch, total, 4})) return s;
  if (aclError s = Shape(call, call.outputs[1], "nmsed_scores", {batch, total})) return s;
  if (aclError s = Shape(call, call.outputs[2], "nmsed_classes", {batch, total})) return s;
  const Operand& num = call.outputs[3];
  if (num.desc->dtype != ACL_INT32 || num.desc->dims != std::vector<int64_t>{batch} ||
      num.buffer->size < static_cast<size_t>(batch) * sizeof(int32_t)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "nmsed_num is not an INT32 [" + std::to_string(batch) + "] that fits its buffer");
  }
  auto* counts = static_cast<int32_t*>(num.buffer->data);
  return Launch(call, [=] {
    for (int64_t b = 0; b < batch; ++b) {
      struct Kept {
        int64_t box, cls;
        float score;
      };
      std::vector<Kept> kept;
      for (int64_t c = 0; c < classes; ++c) {
        auto box = [&](int64_t i) {
          const int64_t at = ((b * n + i) * q + (q == 1 ? 0 : c)) * 4;
          return Corners(boxes[at], boxes[at + 1], boxes[at + 2], boxes[at + 3]);
        };
        auto score = [&](int64_t i) { return scores[(b * n + i) * classes + c]; };
        for (int64_t i : GreedyNms(n, box, score, score_min, iou_max, per_class)) kept.push_back({i, c, score(i)});
      }
      std::stable_sort(kept.begin(), kept.end(), [](const Kept& x, const Kept& y) { return x.score > y.score; });
      const int64_t valid = std::min<int64_t>(total, static_cast<int64_t>(kept.size()));
      for (int64_t k = 0; k < total; ++k) {
        const bool on = k < valid;
        const int64_t at = on ? ((b * n + kept[k].box) * q + (q == 1 ? 0 : kept[k].cls)) * 4 : 0;
        for (int64_t j = 0; j < 4; ++j) out_boxes.Set((b * total + k) * 4 + j, on ? boxes[at + j] : 0.0f);
        out_scores.Set(b * total + k, on ? kept[k].score : 0.0f);
        out_classes.Set(b * total + k, on ? static_cast<float>(kept[k].cls) : 0.0f);
      }
      counts[b] = static_cast<int32_t>(valid);
    }
  });
}

// The batch index of each of `count` RoIs, read once the work queued before the call is done (the
// stream is synchronised): an index outside [0, images), or not whole, is the call's error rather
// than a value read from another image.
aclError CheckBatchIndices(const OpCall& call, int64_t count, const std::function<float(int64_t)>& index, int64_t images) {
  if (aclError s = aclrtSynchronizeStream(call.stream)) return s;
  for (int64_t r = 0; r < count; ++r) {
    const float value = index(r);
    if (!(value >= 0 && value < static_cast<float>(images)) || value != std::floor(value)) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "RoI " + std::to_string(r) + " has batch index " + std::to_string(value) +
                                                         " (the map holds " + std::to_string(images) + " images)");
    }
  }
  return ACL_SUCCESS;
}

// PSROIPoolingV2's geometry, which its gradient shares: position-sensitive RoI average pooling as
// R-FCN defines it (Dai et al., 2016; its Caffe layer's arithmetic): x [B, output_dim *
// group_size^2, H, W], rois [B, 5, R] (batch index, x1, y1, x2, y2 in input coordinates), y [B * R,
// output_dim, group_size, group_size]. A RoI spans round(x1) * scale to (round(x2) + 1) * scale (at
// least 0.1 wide), cut into group_size^2 bins; bin (i, j) of output channel c averages channel (c *
// group_size + i) * group_size + j over the pixels it covers (floor of its start, ceiling of its
// end, clipped to the map), 0 when it covers none.
struct PsRoiGeometry {
  int64_t dim, group, batch, height, width, count;  // count: the RoIs of each row of rois
  float scale;
  Floats rois;

  struct Pixels {
    int64_t image, h0, h1, w0, w1;
    int64_t Area() const { return (h1 - h0) * (w1 - w0); }
  };
  // The pixels bin (i, j) of RoI r of rois' row b covers.
  Pixels Bin(int64_t b, int64_t r, int64_t i, int64_t j) const {
    auto roi = [&](int64_t field) { return rois[(b * 5 + field) * count + r]; };
    const float x1 = std::round(roi(1)) * scale, y1 = std::round(roi(2)) * scale;
    const float x2 = (std::round(roi(3)) + 1) * scale, y2 = (std::round(roi(4)) + 1) * scale;
    const float bin_w = std::max(x2 - x1, 0.1f) / static_cast<float>(group);
    const float bin_h = std::max(y2 - y1, 0.1f) / static_cast<float>(group);
    auto edge = [](float v, int64_t size) { return std::clamp<int64_t>(static_cast<int64_t>(v), 0, size); };
    const auto fi = static_cast<float>(i), fj = static_cast<float>(j);
    return {static_cast<int64_t>(roi(0)),
            edge(std::floor(fi * bin_h + y1), height),
            edge(std::ceil((fi + 1) * bin_h + y1), height),
            edge(std::floor(fj * bin_w + x1), width),
            edge(std::ceil((fj + 1) * bin_w + x1), width)};
  }
  // The offset of channel (c * group + i) * group + j's plane of `image` in the map.
  int64_t Plane(int64_t image, int64_t c, int64_t i, int64_t j) const {
    return (image * dim * group * group + (c * group + i) * group + j) * height * width;
  }
};

// The attributes, the map [B, output_dim * group_size^2, H, W] (x, or the gradient's), rois [B, 5,
// R] and its batch indices, checked; `what` names the map for messages.
aclError PsRoiSetup(const OpCall& call, const Operand& map, const char* what, const Floats& rois, PsRoiGeometry* g) {
  const int64_t dim = call.Int("output_dim", 0), group = call.Int("group_size", 0);
  if (dim <= 0 || group <= 0 || group >= 128) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes output_dim = " + std::to_string(dim) + " and group_size = " +
                                                      std::to_string(group) + " (output_dim > 0, 0 < group_size < 128)");
  }
  const std::vector<int64_t>& x_dims = map.desc->dims;
  const std::vector<int64_t>& r_dims = call.inputs[1].desc->dims;
  if (!PlainFormat(map.desc->format) || map.desc->format == ACL_FORMAT_NHWC || x_dims.size() != 4 ||
      x_dims[1] != dim * group * group) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + " " + ListText(x_dims) +
                                                       " is not NCHW with C = output_dim * group_size^2 = " +
                                                       std::to_string(dim * group * group));
  }
  if (r_dims.size() != 3 || r_dims[0] != x_dims[0] || r_dims[1] != 5) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "rois " + ListText(r_dims) + " is not [B, 5, R] with B the map's batch");
  }
  *g = {dim, group, x_dims[0], x_dims[2], x_dims[3], r_dims[2], call.Float("spatial_scale", 1.0f), rois};
  const int64_t count = g->count;
  return CheckBatchIndices(call, g->batch * count, [&](int64_t k) { return rois[(k / count * 5) * count + k % count]; },
                           g->batch);
}

// PSROIPoolingV2: y's bin (i, j) of output channel c is the mean of its pixels (PsRoiGeometry).
aclError PSROIPoolingV2(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  Floats x, rois, y;
  if (aclError s = FloatsOf(call, call.inputs[0], "x", &x)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "rois", &rois)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "y", &y)) return s;
  PsRoiGeometry g{};
  if (aclError s = PsRoiSetup(call, call.inputs[0], "x", rois, &g)) return s;
  if (aclError s = Shape(call, call.outputs[0], "y", {g.batch * g.count, g.dim, g.group, g.group})) return s;
  return Launch(call, [=] {
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t r = 0; r < g.count; ++r) {
        for (int64_t i = 0; i < g.group; ++i) {
          for (int64_t j = 0; j < g.group; ++j) {
            const PsRoiGeometry::Pixels bin = g.Bin(b, r, i, j);
            for (int64_t c = 0; c < g.dim; ++c) {
              const int64_t plane = g.Plane(bin.image, c, i, j);
              float sum = 0;
              for (int64_t h = bin.h0; h < bin.h1; ++h) {
                for (int64_t w = bin.w0; w < bin.w1; ++w) sum += x[plane + h * g.width + w];
              }
              y.Set((((b * g.count + r) * g.dim + c) * g.group + i) * g.group + j,
                    bin.Area() > 0 ? sum / static_cast<float>(bin.Area()) : 0.0f);
            }
          }
        }
      }
    }
  });
}

// PSROIPoolingGradV2D: PSROIPoolingV2's adjoint (npu_ps_roi_pooling_backward): y_diff [B * R,
// output_dim, group_size, group_size], rois [B, 5, R] -> x_diff [B, output_dim * group_size^2, H, W]
// with (H, W) the attribute input_size, each bin's gradient divided evenly among its pixels.
aclError PSROIPoolingGradV2D(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  Floats dy, rois, dx;
  if (aclError s = FloatsOf(call, call.inputs[0], "y_diff", &dy)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "rois", &rois)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "x_diff", &dx)) return s;
  const std::vector<int64_t> size = call.Ints("input_size");
  const std::vector<int64_t>& x_dims = call.outputs[0].desc->dims;
  if (size.size() != 2 || x_dims.size() != 4 || x_dims[2] != size[0] || x_dims[3] != size[1]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute input_size = " + ListText(size) + " is not x_diff " +
                                                      ListText(x_dims) + "'s (H, W)");
  }
  PsRoiGeometry g{};
  if (aclError s = PsRoiSetup(call, call.outputs[0], "x_diff", rois, &g)) return s;
  if (aclError s = Shape(call, call.inputs[0], "y_diff", {g.batch * g.count, g.dim, g.group, g.group})) return s;
  const int64_t total = Elements(x_dims);
  return Launch(call, [=] {
    std::vector<float> grad(static_cast<size_t>(total), 0.0f);
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t r = 0; r < g.count; ++r) {
        for (int64_t i = 0; i < g.group; ++i) {
          for (int64_t j = 0; j < g.group; ++j) {
            const PsRoiGeometry::Pixels bin = g.Bin(b, r, i, j);
            if (bin.Area() <= 0) continue;
            for (int64_t c = 0; c < g.dim; ++c) {
              const int64_t plane = g.Plane(bin.image, c, i, j);
              const float share = dy[(((b * g.count + r) * g.dim + c) * g.group + i) * g.group + j] / static_cast<float>(bin.Area());
              for (int64_t h = bin.h0; h < bin.h1; ++h) {
                for (int64_t w = bin.w0; w < bin.w1; ++w) grad[static_cast<size_t>(plane + h * g.width + w)] += share;
              }
            }
          }
        }
      }
    }
    for (int64_t k = 0; k < total; ++k) dx.Set(k, grad[static_cast<size_t>(k)]);
  });
}

// ROIAlign's and ROIAlignGrad's checks: the attributes, the map [N, C, H, W] (x, or xdiff_shape),
// rois [R, 5], and each RoI's image (roi_align::BatchIndex, read once the work queued before the call
// is done: the stream is synchronised); the geometry is common/roi_align.h's, which aclnnROIAlign shares.
aclError RoiAlignSetup(const OpCall& call, const std::vector<int64_t>& map, const Floats& rois, roi_align::Geometry* g,
                       std::vector<int64_t>* images) {
  const int64_t mode = call.Int("roi_end_mode", 1);
  if (!roi_align::ModelledEndMode(mode)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute roi_end_mode = " + std::to_string(mode) + " is not modelled (" +
                                                      roi_align::ModelledEndModes() + ")");
  }
  const int64_t ph = call.Int("pooled_height", 0), pw = call.Int("pooled_width", 0), samples = call.Int("sample_num", 2);
  const float scale = call.Float("spatial_scale", 1.0f);
  if (ph <= 0 || pw <= 0 || samples < 0 || !(scale > 0)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "pooled_height " + std::to_string(ph) + ", pooled_width " + std::to_string(pw) +
                                                      ", sample_num " + std::to_string(samples) + ", spatial_scale " +
                                                      std::to_string(scale) + " (positive sizes and scale, sample_num >= 0)");
  }
  if (map.size() != 4) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "the feature map " + ListText(map) + " is not [N, C, H, W]");
  const std::vector<int64_t>& r_dims = call.inputs[1].desc->dims;
  if (r_dims.size() != 2 || r_dims[1] != 5) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "rois " + ListText(r_dims) + " is not [R, 5]");
  if (r_dims[0] > 0 && map[2] * map[3] == 0) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "the feature map " + ListText(map) + " has no pixel to sample");
  }
  *g = {map[1], map[2], map[3], ph, pw, samples, scale, mode == 3};
  if (aclError s = aclrtSynchronizeStream(call.stream)) return s;
  images->resize(static_cast<size_t>(r_dims[0]));
  for (int64_t r = 0; r < r_dims[0]; ++r) {
    (*images)[static_cast<size_t>(r)] = roi_align::BatchIndex(rois[r * 5], map[0]);
    if ((*images)[static_cast<size_t>(r)] < 0) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "RoI " + std::to_string(r) + " has batch index " + std::to_string(rois[r * 5]) +
                                                         " (the map holds " + std::to_string(map[0]) + " images)");
    }
  }
  return ACL_SUCCESS;
}

// ROIAlign: features x [N, C, H, W], rois [R, 5] -> y [R, C, pooled_height, pooled_width], each bin
// the mean of its samples (roi_align::Geometry::Forward).
aclError ROIAlign(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  Floats x, rois, y;
  if (aclError s = FloatsOf(call, call.inputs[0], "features", &x)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "rois", &rois)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "y", &y)) return s;
  if (call.inputs[0].desc->format == ACL_FORMAT_NHWC) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "features in layout NHWC (NCHW modelled)");
  }
  roi_align::Geometry g{};
  std::vector<int64_t> images;
  if (aclError s = RoiAlignSetup(call, call.inputs[0].desc->dims, rois, &g, &images)) return s;
  const auto count = static_cast<int64_t>(images.size());
  if (aclError s = Shape(call, call.outputs[0], "y", {count, g.channels, g.pooled_h, g.pooled_w})) return s;
  return Launch(call, [=] {
    std::vector<float> out(static_cast<size_t>(count * g.channels * g.pooled_h * g.pooled_w));
    g.Forward(x, rois, images.data(), count, out.data());
    for (size_t k = 0; k < out.size(); ++k) y.Set(static_cast<int64_t>(k), out[k]);
  });
}

// ROIAlignGrad: ROIAlign's adjoint (roi_align::Geometry::Backward): ydiff [R, C, pooled_height,
// pooled_width], rois [R, 5] -> xdiff of shape xdiff_shape [N, C, H, W]. pooled_height and
// pooled_width must be ydiff's (torch_npu's npu_roi_alignbk takes them width first).
aclError ROIAlignGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  Floats dy, rois, dx;
  if (aclError s = FloatsOf(call, call.inputs[0], "ydiff", &dy)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "rois", &rois)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "xdiff", &dx)) return s;
  const std::vector<int64_t> map = call.Ints("xdiff_shape");
  roi_align::Geometry g{};
  std::vector<int64_t> images;
  if (aclError s = RoiAlignSetup(call, map, rois, &g, &images)) return s;
  const auto count = static_cast<int64_t>(images.size());
  if (aclError s = Shape(call, call.inputs[0], "ydiff", {count, g.channels, g.pooled_h, g.pooled_w})) return s;
  if (aclError s = Shape(call, call.outputs[0], "xdiff", map)) return s;
  const int64_t total = Elements(map);
  return Launch(call, [=] {
    std::vector<float> grad(static_cast<size_t>(total), 0.0f);
    g.Backward(dy, rois, images.data(), count, grad.data());
    for (int64_t i = 0; i < total; ++i) dx.Set(i, grad[static_cast<size_t>(i)]);
  });
}

// DeformableOffsets: the sampling half of a deformable convolution (Dai et al. 2017, modulated:
// Zhu et al. 2019), whose output a Conv2D of stride ksize then convolves (torch_npu's
// npu_deformable_conv2d). x [N, H, W, C] and offsets [N, Ho, Wo, 3 * G * K] in NHWC (K = kh * kw
// kernel points, G deformable groups), y [N, Ho * kh, Wo * kw, C]: y[n, oh * kh + i, ow * kw + j,
// c] is x's channel c bilinearly sampled (corners outside the map count 0) at
// (oh * stride_h - pad_top + i * dilation_h + dy, ow * stride_w - pad_left + j * dilation_w + dx),
// times the mask m when modulated. The offset channels, as torch_npu's callers lay them out
// (mmcv's NPU adapter reorders its interleaved (dy, dx) pairs so): the G * K dx first, then the
// G * K dy, then the G * K masks, point (g, k) at g * K + k; channel c is in group c / (C / G).
aclError DeformableOffsets(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const std::string format = call.String("data_format", "NCHW");
  if (format != "NHWC") return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute data_format = " + format + " is not modelled (NHWC)");
  const std::vector<int64_t> strides = call.Ints("strides"), pads = call.Ints("pads"), ksize = call.Ints("ksize"),
                             dilations = call.Ints("dilations", {1, 1, 1, 1});
  const int64_t groups = call.Int("deformable_groups", 1);
  const bool modulated = call.Bool("modulated", true);
  if (strides.size() != 4 || pads.size() != 4 || dilations.size() != 4 || ksize.size() != 2 || strides[0] != 1 ||
      strides[3] != 1 || dilations[0] != 1 || dilations[3] != 1 || ksize[0] < 1 || ksize[1] < 1 || strides[1] < 1 ||
      strides[2] < 1 || dilations[1] < 1 || dilations[2] < 1 || groups < 1) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "strides " + ListText(strides) + ", pads " + ListText(pads) + ", ksize " +
                                                      ListText(ksize) + ", dilations " + ListText(dilations) +
                                                      ", deformable_groups " + std::to_string(groups) +
                                                      ": four positive NHWC values (1 on N and C), four pads, two sizes, groups >= 1");
  }
  Floats x, offsets, y;
  if (aclError s = FloatsOf(call, call.inputs[0], "x", &x)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "offsets", &offsets)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "y", &y)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& o_dims = call.inputs[1].desc->dims;
  const int64_t kh = ksize[0], kw = ksize[1], points = kh * kw;
  if (x_dims.size() != 4 || x_dims[3] % groups != 0) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " is not [N, H, W, C] with C a multiple of deformable_groups");
  }
  const int64_t n = x_dims[0], height = x_dims[1], width = x_dims[2], channels = x_dims[3];
  const int64_t out_h = (height + pads[0] + pads[1] - dilations[1] * (kh - 1) - 1) / strides[1] + 1;
  const int64_t out_w = (width + pads[2] + pads[3] - dilations[2] * (kw - 1) - 1) / strides[2] + 1;
  if (aclError s = Shape(call, call.inputs[1], "offsets", {n, out_h, out_w, (modulated ? 3 : 2) * groups * points})) return s;
  if (aclError s = Shape(call, call.outputs[0], "y", {n, out_h * kh, out_w * kw, channels})) return s;
  const int64_t sh = strides[1], sw = strides[2], top = pads[0], left = pads[2], dh = dilations[1], dw = dilations[2];
  const int64_t depth = o_dims[3], per_group = channels / groups;
  return Launch(call, [=] {
    auto at = [&](int64_t b, int64_t h, int64_t w, int64_t c) {
      return h < 0 || h >= height || w < 0 || w >= width ? 0.0f : x[((b * height + h) * width + w) * channels + c];
    };
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const int64_t base = ((b * out_h + oh) * out_w + ow) * depth;
          for (int64_t k = 0; k < points; ++k) {
            const int64_t i = k / kw, j = k % kw;
            for (int64_t c = 0; c < channels; ++c) {
              const int64_t point = (c / per_group) * points + k;
              const float py = static_cast<float>(oh * sh - top + i * dh) + offsets[base + groups * points + point];
              const float px = static_cast<float>(ow * sw - left + j * dw) + offsets[base + point];
              const float mask = modulated ? offsets[base + 2 * groups * points + point] : 1.0f;
              const float fy = std::floor(py), fx = std::floor(px), ly = py - fy, lx = px - fx;
              const auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
              const float value = (1 - ly) * (1 - lx) * at(b, y0, x0, c) + (1 - ly) * lx * at(b, y0, x0 + 1, c) +
                                  ly * (1 - lx) * at(b, y0 + 1, x0, c) + ly * lx * at(b, y0 + 1, x0 + 1, c);
              y.Set(((b * out_h * kh + oh * kh + i) * out_w * kw + ow * kw + j) * channels + c, mask * value);
            }
          }
        }
      }
    }
  });
}


// The four means and four stds of BoundingBoxEncode and BoundingBoxDecode (default 0 and 1).
aclError MeansAndStds(const OpCall& call, std::vector<float>* means, std::vector<float>* stds) {
  auto floats = [&](const char* name, float fallback, std::vector<float>* values) -> aclError {
    auto it = call.attrs.find(name);
    *values = it == call.attrs.end() ? std::vector<float>(4, fallback) : std::get<std::vector<float>>(it->second);
    if (values->size() == 4) return ACL_SUCCESS;
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute ") + name + " holds " + std::to_string(values->size()) +
                                                      " values (4: x, y, width, height)");
  };
  if (aclError s = floats("means", 0.0f, means)) return s;
  return floats("stds", 1.0f, stds);
}

// Two [N, 4] box operands and the [N, 4] output of BoundingBoxEncode/Decode.
aclError BoxPairs(const OpCall& call, Floats* a, Floats* b, Floats* y, int64_t* count) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  if (aclError s = FloatsOf(call, call.inputs[0], "the first input", a)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "the second input", b)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "the output", y)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() != 2 || dims[1] != 4) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "boxes " + ListText(dims) + " are not [N, 4]");
  if (aclError s = Shape(call, call.inputs[1], "the second input", dims)) return s;
  if (aclError s = Shape(call, call.outputs[0], "the output", dims)) return s;
  *count = dims[0];
  return ACL_SUCCESS;
}

// BoundingBoxEncode: the deltas (dx, dy, dw, dh) taking anchor boxes to ground-truth boxes, as
// MMDetection's (legacy) bbox2delta computes them, normalised by means and stds: centres and sizes
// with the +1 pixel convention (w = x2 - x1 + 1), dx = (gx - px) / pw, dw = log(gw / pw). A
// negative size ratio is taken by its magnitude (log |gw / pw|), as torch_npu's own test expects.
aclError BoundingBoxEncode(const OpCall& call) {
  std::vector<float> means, stds;
  if (aclError s = MeansAndStds(call, &means, &stds)) return s;
  Floats anchors, truths, deltas;
  int64_t n = 0;
  if (aclError s = BoxPairs(call, &anchors, &truths, &deltas, &n)) return s;
  return Launch(call, [=] {
    for (int64_t i = 0; i < n; ++i) {
      const Box p{anchors[i * 4], anchors[i * 4 + 1], anchors[i * 4 + 2], anchors[i * 4 + 3]};
      const Box g{truths[i * 4], truths[i * 4 + 1], truths[i * 4 + 2], truths[i * 4 + 3]};
      const float pw = p.x2 - p.x1 + 1, ph = p.y2 - p.y1 + 1, gw = g.x2 - g.x1 + 1, gh = g.y2 - g.y1 + 1;
      const float d[4] = {((g.x1 + g.x2) - (p.x1 + p.x2)) * 0.5f / pw, ((g.y1 + g.y2) - (p.y1 + p.y2)) * 0.5f / ph,
                          std::log(std::fabs(gw / pw)), std::log(std::fabs(gh / ph))};
      for (int k = 0; k < 4; ++k) deltas.Set(i * 4 + k, (d[k] - means[k]) / stds[k]);
    }
  });
}

// BoundingBoxDecode: boxes from rois and their deltas, MMDetection's (legacy) delta2bbox: the
// deltas denormalised (d * std + mean), dw and dh clipped to |log(wh_ratio_clip)|, the box
// (gx -+ (gw - 1) / 2, gy -+ (gh - 1) / 2) with gx = px + pw * dx, gw = pw * exp(dw) (+1 pixel
// sizes), clipped to the image when max_shape gives its (height, width): x to [0, width - 1], y to
// [0, height - 1].
aclError BoundingBoxDecode(const OpCall& call) {
  std::vector<float> means, stds;
  if (aclError s = MeansAndStds(call, &means, &stds)) return s;
  const std::vector<int64_t> shape = call.Ints("max_shape");
  if (!shape.empty() && shape.size() != 2) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute max_shape = " + ListText(shape) + " is not (height, width)");
  }
  const float ratio = std::fabs(std::log(call.Float("wh_ratio_clip", 0.016f)));
  Floats rois, deltas, boxes;
  int64_t n = 0;
  if (aclError s = BoxPairs(call, &rois, &deltas, &boxes, &n)) return s;
  return Launch(call, [=] {
    for (int64_t i = 0; i < n; ++i) {
      float d[4];
      for (int k = 0; k < 4; ++k) d[k] = deltas[i * 4 + k] * stds[k] + means[k];
      const Box p{rois[i * 4], rois[i * 4 + 1], rois[i * 4 + 2], rois[i * 4 + 3]};
      const float pw = p.x2 - p.x1 + 1, ph = p.y2 - p.y1 + 1;
      const float gw = pw * std::exp(std::clamp(d[2], -ratio, ratio)), gh = ph * std::exp(std::clamp(d[3], -ratio, ratio));
      const float gx = (p.x1 + p.x2) * 0.5f + pw * d[0], gy = (p.y1 + p.y2) * 0.5f + ph * d[1];
      float out[4] = {gx - gw * 0.5f + 0.5f, gy - gh * 0.5f + 0.5f, gx + gw * 0.5f - 0.5f, gy + gh * 0.5f - 0.5f};
      if (!shape.empty()) {
        for (int k = 0; k < 4; ++k) out[k] = std::clamp(out[k], 0.0f, static_cast<float>(shape[k % 2 == 0 ? 1 : 0] - 1));
      }
      for (int k = 0; k < 4; ++k) boxes.Set(i * 4 + k, out[k]);
    }
  });
}

// AnchorResponseFlags: MMDetection's YOLO responsible flags (YOLOAnchorGenerator's
// single_level_responsible_flags), which the operator computes: the grid cell (floor(cx / stride
// x), floor(cy / stride y)) holding each gt box's centre is responsible, and flags [h * w *
// num_base_anchors] (UINT8) is 1 for every base anchor of a responsible cell, 0 elsewhere
// (featmap_size (h, w), strides (x, y)). A centre outside the map flags no cell (MMDetection's
// would index out of its grid).
aclError AnchorResponseFlags(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t> size = call.Ints("featmap_size"), strides = call.Ints("strides");
  const int64_t anchors = call.Int("num_base_anchors", 0);
  if (size.size() != 2 || size[0] < 0 || size[1] < 0) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute featmap_size = " + ListText(size) + " is not (height, width)");
  }
  if (strides.size() != 2 || strides[0] <= 0 || strides[1] <= 0) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute strides = " + ListText(strides) + " is not two positive strides");
  }
  if (anchors <= 0) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute num_base_anchors = " + std::to_string(anchors));
  Floats boxes;
  if (aclError s = FloatsOf(call, call.inputs[0], "gt_bboxes", &boxes)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() != 2 || dims[1] != 4) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "gt_bboxes " + ListText(dims) + " is not [N, 4]");
  const Operand& flags = call.outputs[0];
  if (flags.desc->dtype != ACL_UINT8) {
    return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("flags of dtype ") + DTypeName(flags.desc->dtype) + " (UINT8)");
  }
  const int64_t h = size[0], w = size[1], total = h * w * anchors;
  if (aclError s = Shape(call, flags, "flags", {total})) return s;
  if (static_cast<size_t>(total) > flags.buffer->size) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "flags of shape [" + std::to_string(total) + "] does not fit its data buffer");
  }
  const int64_t n = dims[0];
  uint8_t* out = static_cast<uint8_t*>(flags.buffer->data);
  return Launch(call, [=] {
    std::fill(out, out + total, uint8_t{0});
    for (int64_t i = 0; i < n; ++i) {
      const float cx = (boxes[i * 4] + boxes[i * 4 + 2]) * 0.5f, cy = (boxes[i * 4 + 1] + boxes[i * 4 + 3]) * 0.5f;
      const float gx = std::floor(cx / static_cast<float>(strides[0])), gy = std::floor(cy / static_cast<float>(strides[1]));
      if (!(gx >= 0 && gx < static_cast<float>(w) && gy >= 0 && gy < static_cast<float>(h))) continue;
      const int64_t cell = static_cast<int64_t>(gy) * w + static_cast<int64_t>(gx);
      std::fill(out + cell * anchors, out + (cell + 1) * anchors, uint8_t{1});
    }
  });
}

// YoloBoxesEncode: MMDetection's YOLOBBoxCoder.encode, which the operator computes: anchors and gt
// boxes [N, 4] (corners) to (x, y, w, h) targets [N, 4], x = clamp((gt centre x - anchor centre
// x) / stride + 0.5, eps, 1 - eps) (y alike) and w = log(max(gt w / anchor w, eps)) (h alike), with
// MMDetection's eps 1e-6 and stride [N] (INT32, one per box). performance_mode ("high_precision" or
// "high_performance") changes how a device computes, not the formula.
aclError YoloBoxesEncode(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const std::string mode = call.String("performance_mode", "high_precision");
  if (mode != "high_precision" && mode != "high_performance") {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute performance_mode = \"" + mode +
                                                      "\" (\"high_precision\" or \"high_performance\")");
  }
  Floats anchors, gt, encoded;
  if (aclError s = FloatsOf(call, call.inputs[0], "anchor_boxes", &anchors)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "gt_bboxes", &gt)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "encoded_bboxes", &encoded)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() != 2 || dims[1] != 4) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "anchor_boxes " + ListText(dims) + " is not [N, 4]");
  const int64_t n = dims[0];
  if (aclError s = Shape(call, call.inputs[1], "gt_bboxes", {n, 4})) return s;
  if (aclError s = Shape(call, call.outputs[0], "encoded_bboxes", {n, 4})) return s;
  const Operand& stride = call.inputs[2];
  if (stride.desc->dtype != ACL_INT32) {
    return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("stride of dtype ") + DTypeName(stride.desc->dtype) + " (INT32)");
  }
  if (aclError s = Shape(call, stride, "stride", {n})) return s;
  if (static_cast<size_t>(n) * sizeof(int32_t) > stride.buffer->size) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "stride of shape [" + std::to_string(n) + "] does not fit its data buffer");
  }
  const int32_t* strides = static_cast<const int32_t*>(stride.buffer->data);
  return Launch(call, [=] {
    constexpr float kEps = 1e-6f;
    for (int64_t i = 0; i < n; ++i) {
      const Box a{anchors[i * 4], anchors[i * 4 + 1], anchors[i * 4 + 2], anchors[i * 4 + 3]};
      const Box g{gt[i * 4], gt[i * 4 + 1], gt[i * 4 + 2], gt[i * 4 + 3]};
      const float s = static_cast<float>(strides[i]);
      const float x = ((g.x1 + g.x2) * 0.5f - (a.x1 + a.x2) * 0.5f) / s + 0.5f;
      const float y = ((g.y1 + g.y2) * 0.5f - (a.y1 + a.y2) * 0.5f) / s + 0.5f;
      encoded.Set(i * 4, std::clamp(x, kEps, 1 - kEps));
      encoded.Set(i * 4 + 1, std::clamp(y, kEps, 1 - kEps));
      encoded.Set(i * 4 + 2, std::log(std::max((g.x2 - g.x1) / (a.x2 - a.x1), kEps)));
      encoded.Set(i * 4 + 3, std::log(std::max((g.y2 - g.y1) / (a.y2 - a.y1), kEps)));
    }
  });
}

// SubSample: Faster R-CNN's balanced sampling of anchors (torchvision's
// BalancedPositiveNegativeSampler, whose batch_size_per_image and positive_fraction the prototype
// names): of labels [N] (INT32: 1 positive, 0 negative, -1 ignored), min(#positive,
// int(batch_size_per_images * positive_fraction)) positives and min(#negative, batch_size_per_images
// - that) negatives are kept, drawn uniformly without replacement; y [N] holds their labels and -1
// elsewhere. A label outside {-1, 0, 1} is refused: what y holds for it is not documented. The draws
// are the simulator's random stream (a process-wide generator), not a device's.
aclError SubSample(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const int64_t batch = call.Int("batch_size_per_images", 0);
  const float fraction = call.Float("positive_fraction", 0.0f);
  if (batch < 0 || !(fraction >= 0.0f && fraction <= 1.0f)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "batch_size_per_images " + std::to_string(batch) + " or positive_fraction " +
                                                      std::to_string(fraction) + " is outside its range");
  }
  const Operand& y = call.outputs[0];
  const int64_t n = Elements(call.inputs[0].desc->dims);
  if (call.inputs[0].desc->dtype != ACL_INT32 || y.desc->dtype != ACL_INT32) {
    return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "labels and y must be INT32 (the prototype's)");
  }
  if (aclError s = Shape(call, y, "y", call.inputs[0].desc->dims)) return s;
  if (y.buffer->size < static_cast<size_t>(n) * 4) return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "y does not fit its data buffer");
  std::vector<int64_t> labels;  // read once the stream's earlier work is done, to check them
  if (aclError s = call.ConstInts(0, "labels", &labels)) return s;
  std::vector<int64_t> positive, negative;
  for (int64_t i = 0; i < n; ++i) {
    if (labels[i] < -1 || labels[i] > 1) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "label " + std::to_string(labels[i]) + " at " + std::to_string(i) +
                                                         " is not -1, 0 or 1 (what y holds for it is not documented)");
    }
    if (labels[i] == 1) positive.push_back(i);
    if (labels[i] == 0) negative.push_back(i);
  }
  const auto quota = static_cast<int64_t>(static_cast<double>(batch) * static_cast<double>(fraction));
  const int64_t positives = std::min<int64_t>(static_cast<int64_t>(positive.size()), quota);
  const int64_t negatives = std::min<int64_t>(static_cast<int64_t>(negative.size()), batch - positives);
  static std::mutex mutex;
  static std::mt19937_64 generator(0x5eed);
  std::vector<int32_t> out(static_cast<size_t>(n), -1);
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto [pool, count] : {std::pair{&positive, positives}, std::pair{&negative, negatives}}) {
      for (int64_t k = 0; k < count; ++k) {  // a partial Fisher-Yates shuffle: the first `count` drawn
        std::uniform_int_distribution<int64_t> pick(k, static_cast<int64_t>(pool->size()) - 1);
        std::swap((*pool)[k], (*pool)[pick(generator)]);
        out[(*pool)[k]] = static_cast<int32_t>(labels[(*pool)[k]]);
      }
    }
  }
  std::copy(out.begin(), out.end(), static_cast<int32_t*>(y.buffer->data));
  return ACL_SUCCESS;
}

}  // namespace

const std::vector<OpEntry>& VisionEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"Iou", {{"mode", K::kString}, {"eps", K::kFloat}}, Iou},
      {"GIoU", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}}, GIoU},
      {"DIoU", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}}, DIoU},
      {"CIoU", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}, {"atan_sub_flag", K::kBool}}, CIoU},
      {"GIoUGrad", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}}, GIoUGrad},
      {"DIoUGrad", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}}, DIoUGrad},
      {"NonMaxSuppressionV4", {{"pad_to_max_output_size", K::kBool}}, NonMaxSuppressionV4},
      {"BatchMultiClassNonMaxSuppression",
       {{"score_threshold", K::kFloat}, {"iou_threshold", K::kFloat}, {"max_size_per_class", K::kInt},
        {"max_total_size", K::kInt}, {"change_coordinate_frame", K::kBool}, {"transpose_box", K::kBool}},
       BatchMultiClassNonMaxSuppression},
      {"PSROIPoolingV2", {{"spatial_scale", K::kFloat}, {"output_dim", K::kInt}, {"group_size", K::kInt}}, PSROIPoolingV2},
      {"PSROIPoolingGradV2D",
       {{"spatial_scale", K::kFloat}, {"output_dim", K::kInt}, {"group_size", K::kInt}, {"input_size", K::kListInt}},
       PSROIPoolingGradV2D},
      {"ROIAlign",
       {{"spatial_scale", K::kFloat}, {"pooled_height", K::kInt}, {"pooled_width", K::kInt}, {"sample_num", K::kInt},
        {"roi_end_mode", K::kInt}},
       ROIAlign},
      {"ROIAlignGrad",
       {{"xdiff_shape", K::kListInt}, {"pooled_height", K::kInt}, {"pooled_width", K::kInt}, {"spatial_scale", K::kFloat},
        {"sample_num", K::kInt}, {"roi_end_mode", K::kInt}},
       ROIAlignGrad},
      {"DeformableOffsets",
       {{"strides", K::kListInt}, {"pads", K::kListInt}, {"ksize", K::kListInt}, {"dilations", K::kListInt},
        {"data_format", K::kString}, {"deformable_groups", K::kInt}, {"modulated", K::kBool}},
       DeformableOffsets},
      {"BoundingBoxEncode", {{"means", K::kListFloat}, {"stds", K::kListFloat}}, BoundingBoxEncode},
      {"BoundingBoxDecode",
       {{"means", K::kListFloat}, {"stds", K::kListFloat}, {"max_shape", K::kListInt}, {"wh_ratio_clip", K::kFloat}},
       BoundingBoxDecode},
      {"AnchorResponseFlags", {{"featmap_size", K::kListInt}, {"strides", K::kListInt}, {"num_base_anchors", K::kInt}},
       AnchorResponseFlags},
      {"YoloBoxesEncode", {{"performance_mode", K::kString}}, YoloBoxesEncode},
      {"SubSample", {{"batch_size_per_images", K::kInt}, {"positive_fraction", K::kFloat}}, SubSample},
  };
  return entries;
}

}  // namespace aclsim::aclop
