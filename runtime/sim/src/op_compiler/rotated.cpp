// The aclop bridge's rotated-box operators, which no aclnn API computes: RotatedBoxEncode,
// RotatedBoxDecode, RotatedIou, RotatedOverlaps and RotatedNMS (torch_npu's npu_rotated_box_encode,
// npu_rotated_box_decode, npu_rotated_iou, npu_rotated_overlaps and npu_nms_rotated run them by type
// name), and NMSWithMask (npu_nms_with_mask). Host kernels as vision.cpp's: shapes, dtypes and
// attributes checked when the call is made, the arithmetic run in stream order in double, float16
// operands converted on the way in and out; the two suppressions read their boxes once the stream's
// earlier work is done, to refuse where the data meets what their documentation leaves open.
//
// What the documentation on hand pins, and where from:
// - RotatedBoxEncode/Decode read a box as (x1, y1, x2, y2, angle in degrees) and encode the angle as
//   tan(angle): the only reading that reproduces both examples of torch_npu's docstrings
//   (npu_rotated_box_encode: anchor (30.69, 32.6, 45.94, 59.88, -44.53), gt (30.44, 18.72, 33.22,
//   45.56, 8.5) -> (-0.4253, -0.5166, -1.7021, -0.0162, 1.1328); npu_rotated_box_decode: anchor
//   (4.137, 33.72, 29.4, 54.06, 41.28), deltas (0.0244, -1.992, 0.2109, 0.315, -37.25) -> (1.7861,
//   -10.5781, 33.0, 17.2969, -88.4375)): dx = (gx - px) / pw, dw = log(gw / pw) with w = x2 - x1
//   (no +1 pixel), da = tan(ga) - tan(pa), and back by atan in (-90, 90) degrees.
// - RotatedIou, RotatedOverlaps and RotatedNMS read a box as (centre x, centre y, width, height,
//   angle in degrees): MMCV, whose NPU path calls RotatedIou and RotatedNMS with the boxes its CPU
//   and CUDA kernels take in radians, multiplies the angle by 180 / pi first (mmcv 2.2.0,
//   ops/box_iou_rotated.py: "scale_mat[-1] = 1.0 / 0.01745329252"; ops/nms.py: "coefficient =
//   57.29578  # 180 / PI ... radians to angle"). Its corners are MMCV's (common/
//   box_iou_rotated_utils.hpp, get_rotated_vertices): the centre plus R(angle) (w / 2, h / 2)
//   with R = [[cos, -sin], [sin, cos]] ("clockwise" in its y-down image frame), and a box of area
//   below 1e-14 has IoU 0 with any box (its single_box_iou_rotated).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "common/internal.h"
#include "op_compiler/bridge.h"
#include "op_compiler/host_kernel.h"

namespace aclsim::aclop {

namespace {

constexpr double kRadiansPerDegree = 3.14159265358979323846 / 180.0;

// The coordinate rows of a [B, 5, N] box operand: box i of image b has field k at (b * 5 + k) * N + i.
struct BoxRows {
  Floats data;
  int64_t count = 0;  // N
  double Field(int64_t b, int k, int64_t i) const { return data[(b * 5 + k) * count + i]; }
};

// A [B, 5, N] operand as BoxRows, or the call's failure naming `what`.
aclError ReadBoxRows(const OpCall& call, const Operand& operand, const char* what, int64_t batch, BoxRows* rows) {
  if (aclError s = FloatsOf(call, operand, what, &rows->data)) return s;
  const std::vector<int64_t>& dims = operand.desc->dims;
  if (dims.size() != 3 || dims[1] != 5 || (batch >= 0 && dims[0] != batch)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + " of shape " + ListText(dims) + " is not [B, 5, N]" +
                                                       (batch >= 0 ? " with B = " + std::to_string(batch) : ""));
  }
  rows->count = dims[2];
  return ACL_SUCCESS;
}

// The attribute weight of RotatedBoxEncode and RotatedBoxDecode: five ones only. Whether a weight
// multiplies its delta when encoding and divides it when decoding (Detectron's box coders) or the
// reverse is not documented, and the docstrings' examples use ones.
aclError CheckUnitWeights(const OpCall& call) {
  auto it = call.attrs.find("weight");
  if (it == call.attrs.end()) return ACL_SUCCESS;
  const auto& weight = std::get<std::vector<float>>(it->second);
  if (weight.size() == 5 && std::all_of(weight.begin(), weight.end(), [](float w) { return w == 1.0f; })) return ACL_SUCCESS;
  std::string text;
  for (float w : weight) text += (text.empty() ? "" : ",") + std::to_string(w);
  return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH,
                   "attribute weight = [" + text + "] is not modelled (five ones): whether a weight multiplies or divides its "
                   "delta is not documented");
}

// RotatedBoxEncode and RotatedBoxDecode: anchor boxes and a second [B, 5, N] operand (gt boxes or
// deltas) to y [B, 5, N], box by box.
template <typename Code>
aclError RotatedBoxCoder(const OpCall& call, const char* second, Code code) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  if (aclError s = CheckUnitWeights(call)) return s;
  BoxRows anchors, other, y;
  if (aclError s = ReadBoxRows(call, call.inputs[0], "anchor_box", -1, &anchors)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (aclError s = ReadBoxRows(call, call.inputs[1], second, dims[0], &other)) return s;
  if (aclError s = Shape(call, call.inputs[1], second, dims)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "y", &y.data)) return s;
  if (aclError s = Shape(call, call.outputs[0], "y", dims)) return s;
  y.count = anchors.count;
  const int64_t batch = dims[0];
  return Launch(call, [=] {
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < anchors.count; ++i) {
        double p[5], q[5], out[5];
        for (int k = 0; k < 5; ++k) {
          p[k] = anchors.Field(b, k, i);
          q[k] = other.Field(b, k, i);
        }
        code(p, q, out);
        for (int k = 0; k < 5; ++k) y.data.Set((b * 5 + k) * y.count + i, static_cast<float>(out[k]));
      }
    }
  });
}

// RotatedBoxEncode: the deltas taking anchor p to gt box g (the file's note gives the evidence).
aclError RotatedBoxEncode(const OpCall& call) {
  return RotatedBoxCoder(call, "gt_box", [](const double* p, const double* g, double* d) {
    const double pw = p[2] - p[0], ph = p[3] - p[1], gw = g[2] - g[0], gh = g[3] - g[1];
    d[0] = ((g[0] + g[2]) - (p[0] + p[2])) / 2.0 / pw;
    d[1] = ((g[1] + g[3]) - (p[1] + p[3])) / 2.0 / ph;
    d[2] = std::log(gw / pw);
    d[3] = std::log(gh / ph);
    d[4] = std::tan(g[4] * kRadiansPerDegree) - std::tan(p[4] * kRadiansPerDegree);
  });
}

// RotatedBoxDecode: the box that deltas d take anchor p to, RotatedBoxEncode's inverse.
aclError RotatedBoxDecode(const OpCall& call) {
  return RotatedBoxCoder(call, "deltas", [](const double* p, const double* d, double* g) {
    const double pw = p[2] - p[0], ph = p[3] - p[1];
    const double gx = (p[0] + p[2]) / 2.0 + d[0] * pw, gy = (p[1] + p[3]) / 2.0 + d[1] * ph;
    const double gw = pw * std::exp(d[2]), gh = ph * std::exp(d[3]);
    g[0] = gx - gw / 2.0;
    g[1] = gy - gh / 2.0;
    g[2] = gx + gw / 2.0;
    g[3] = gy + gh / 2.0;
    g[4] = std::atan(std::tan(p[4] * kRadiansPerDegree) + d[4]) / kRadiansPerDegree;
  });
}

struct Point {
  double x, y;
};

double Cross(const Point& o, const Point& a, const Point& b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

// A rotated box: centre, size and angle in degrees.
struct RotatedBox {
  double cx, cy, w, h, degrees;
  double Area() const { return w * h; }
};

// The box of field rows k = 0..4 as (centre x, centre y, w, h, angle), or when `corners` (RotatedIou's
// and RotatedOverlaps' trans, "xyxyt") as (x1, y1, x2, y2, angle).
RotatedBox ReadRotatedBox(const BoxRows& rows, int64_t b, int64_t i, bool corners) {
  double f[5];
  for (int k = 0; k < 5; ++k) f[k] = rows.Field(b, k, i);
  if (!corners) return {f[0], f[1], f[2], f[3], f[4]};
  return {(f[0] + f[2]) / 2.0, (f[1] + f[3]) / 2.0, f[2] - f[0], f[3] - f[1], f[4]};
}

// The box's corners, counter-clockwise (a positive area) when w * h > 0, around the origin shifted
// to `origin` (two boxes' common centre keeps the arithmetic near zero, as MMCV's kernel does).
std::array<Point, 4> RotatedCorners(const RotatedBox& box, const Point& origin) {
  const double c = std::cos(box.degrees * kRadiansPerDegree), s = std::sin(box.degrees * kRadiansPerDegree);
  const double cx = box.cx - origin.x, cy = box.cy - origin.y;
  // w and h both negative is the box turned by 180 degrees: the same corners, still counter-clockwise.
  const double half_w = box.w / 2.0, half_h = box.h / 2.0;
  const Point offsets[4] = {{-half_w, -half_h}, {half_w, -half_h}, {half_w, half_h}, {-half_w, half_h}};
  std::array<Point, 4> corners{};
  for (int k = 0; k < 4; ++k) {
    corners[k] = {cx + c * offsets[k].x - s * offsets[k].y, cy + s * offsets[k].x + c * offsets[k].y};
  }
  return corners;
}

// The area where two rotated boxes overlap: the first's polygon clipped by each edge of the
// second (Sutherland-Hodgman; both convex and counter-clockwise), then the shoelace formula. A
// box of no area (w * h below MMCV's 1e-14) overlaps nothing.
double OverlapArea(const RotatedBox& p, const RotatedBox& q) {
  if (p.Area() < 1e-14 || q.Area() < 1e-14) return 0.0;
  const Point origin{(p.cx + q.cx) / 2.0, (p.cy + q.cy) / 2.0};
  const std::array<Point, 4> pc = RotatedCorners(p, origin), qc = RotatedCorners(q, origin);
  std::vector<Point> polygon(pc.begin(), pc.end()), clipped;
  for (int e = 0; e < 4 && !polygon.empty(); ++e) {
    const Point &a = qc[e], &b = qc[(e + 1) % 4];
    clipped.clear();
    for (size_t k = 0; k < polygon.size(); ++k) {
      const Point &from = polygon[k], &to = polygon[(k + 1) % polygon.size()];
      const double side_from = Cross(a, b, from), side_to = Cross(a, b, to);  // >= 0: inside (left of a -> b)
      if (side_from >= 0) clipped.push_back(from);
      if ((side_from >= 0) != (side_to >= 0)) {
        const double t = side_from / (side_from - side_to);
        clipped.push_back({from.x + t * (to.x - from.x), from.y + t * (to.y - from.y)});
      }
    }
    polygon.swap(clipped);
  }
  double twice = 0.0;
  for (size_t k = 0; k < polygon.size(); ++k) {
    const Point &u = polygon[k], &v = polygon[(k + 1) % polygon.size()];
    twice += u.x * v.y - v.x * u.y;
  }
  return std::max(twice / 2.0, 0.0);
}

// IoU (or, `over_first`, the overlap over the first box's area: MMCV's "iof") of two rotated boxes;
// 0 when either has no area, as MMCV's single_box_iou_rotated.
double RotatedIouOf(const RotatedBox& p, const RotatedBox& q, bool over_first) {
  if (p.Area() < 1e-14 || q.Area() < 1e-14) return 0.0;
  const double inter = OverlapArea(p, q);
  return inter / (over_first ? p.Area() : p.Area() + q.Area() - inter);
}

// RotatedIou and RotatedOverlaps: boxes [B, 5, N] and query_boxes [B, 5, K] to y: every pair
// [B, N, K] (is_cross), or box i with query box i (N = K) in B * N values. `metric` maps a pair to
// the value.
template <typename Metric>
aclError RotatedPairs(const OpCall& call, bool cross, Metric metric) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const bool corners = call.Bool("trans", false);
  BoxRows boxes, queries;
  Floats y;
  if (aclError s = ReadBoxRows(call, call.inputs[0], "boxes", -1, &boxes)) return s;
  const int64_t batch = call.inputs[0].desc->dims[0];
  if (aclError s = ReadBoxRows(call, call.inputs[1], "query_boxes", batch, &queries)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "the output", &y)) return s;
  const int64_t n = boxes.count, k = queries.count;
  if (!cross && n != k) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "is_cross false pairs box i with query box i, but boxes hold " +
                                                       std::to_string(n) + " and query_boxes " + std::to_string(k));
  }
  // A one-to-one output holds B * N values (MMCV passes [N] with B = 1); torch_npu gives it [B, N,
  // N], where which N of the values the kernel writes is not documented: refused.
  const std::vector<int64_t>& y_dims = call.outputs[0].desc->dims;
  if (cross ? y_dims != std::vector<int64_t>{batch, n, k} : Elements(y_dims) != batch * n) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH,
                     "the output of shape " + ListText(y_dims) + " (expected " +
                         (cross ? ListText({batch, n, k}) : std::to_string(batch * n) + " values for is_cross false: where "
                                                                                    "the kernel writes them in another shape is "
                                                                                    "not documented") + ")");
  }
  return Launch(call, [=] {
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < n; ++i) {
        const RotatedBox p = ReadRotatedBox(boxes, b, i, corners);
        for (int64_t j = cross ? 0 : i; j < (cross ? k : i + 1); ++j) {
          const int64_t at = cross ? (b * n + i) * k + j : b * n + i;
          y.Set(at, static_cast<float>(metric(p, ReadRotatedBox(queries, b, j, corners))));
        }
      }
    }
  });
}

// v_threshold and e_threshold relax the device kernel's tests of a corner inside a box and of two
// edges crossing, by amounts whose effect on the area is not documented; the overlap here is
// exact, which their default 0 asks for. torch_npu sets both under the name "value" (op-plugin's
// call, seen in every npu_rotated_iou), which the prototype does not have: its kernel runs with the
// defaults 0 whatever the caller passes (its docstring's example runs on a device), and so does
// this one. That example also shows what zero thresholds cost the device's kernel: boxes compared
// with themselves give IoU 0.333 and 6e-8 where the overlap is the whole box. Here the overlap is
// exact (1 for a box with itself), as MMCV's CPU kernel, which its NPU path is held to, computes it.
aclError RotatedIou(const OpCall& call) {
  for (const char* name : {"v_threshold", "e_threshold"}) {
    if (call.Float(name, 0.0f) != 0.0f) {
      return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute ") + name + " = " +
                                                        std::to_string(call.Float(name, 0.0f)) +
                                                        " is not modelled (0: how it relaxes the intersection is not documented)");
    }
  }
  int64_t mode = 0;
  if (aclError s = call.Choice("mode", "iou", {"iou", "iof"}, &mode)) return s;
  const bool over_first = mode == 1;
  return RotatedPairs(call, call.Bool("is_cross", true),
                      [over_first](const RotatedBox& p, const RotatedBox& q) { return RotatedIouOf(p, q, over_first); });
}

// RotatedOverlaps: the area every pair of boxes overlaps.
aclError RotatedOverlaps(const OpCall& call) {
  return RotatedPairs(call, true, [](const RotatedBox& p, const RotatedBox& q) { return OverlapArea(p, q); });
}

// --- non-maximum suppressions, whose outputs the data decides ----------------------------------
// They read their inputs on the host once the stream's earlier work is done (OpCall::ConstBytes,
// as a kernel reads them when it runs), so that what the documentation leaves open can be checked
// against the data: where the readings it allows give different results the call is refused
// naming the question, and where they agree the result is written.

// A floating input's values on the host (the stream's earlier work done).
aclError HostFloats(const OpCall& call, size_t input, const char* what, Floats* values) {
  if (aclError s = FloatsOf(call, call.inputs[input], what, values)) return s;  // dtype and size
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  if (aclError s = call.ConstBytes(input, what, &bytes, &size)) return s;
  values->data = const_cast<uint8_t*>(bytes);  // read only
  return ACL_SUCCESS;
}

// Writes the extents of an output the data sized: into its description through
// aclopCompileAndExecuteV2 (where torch_npu reads them, as indexing.cpp's WithDataShape), else
// the description must already hold them.
aclError SetExtent(const OpCall& call, size_t output, const std::vector<int64_t>& dims) {
  OpTensorDesc& desc = *call.outputs[output].desc;
  if (call.api == "aclopCompileAndExecuteV2") {
    desc.dims = dims;
    desc.origin_dims = dims;
    return ACL_SUCCESS;
  }
  if (desc.dims == dims) return ACL_SUCCESS;
  return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "output " + std::to_string(output) + " is " + ListText(dims) +
                                                      " by the data, not its description's " + ListText(desc.dims) +
                                                      ", which only aclopCompileAndExecuteV2 could return");
}

// The indices of `scores` by decreasing score, or the call's refusal when two are equal: which of
// two boxes of one score an NMS visits first is not documented, and it decides which is kept.
aclError ScoreOrder(const OpCall& call, const std::vector<double>& scores, std::vector<int64_t>* order) {
  order->resize(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) (*order)[i] = static_cast<int64_t>(i);
  std::stable_sort(order->begin(), order->end(), [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  for (size_t k = 1; k < order->size(); ++k) {
    if (scores[(*order)[k - 1]] == scores[(*order)[k]]) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "boxes " + std::to_string((*order)[k - 1]) + " and " +
                                                         std::to_string((*order)[k]) +
                                                         " have the same score, and which of them it visits first is not "
                                                         "documented");
    }
  }
  return ACL_SUCCESS;
}

// Greedy NMS over `order`: a box kept unless its IoU with a box kept before it is above iou_max
// (MMCV's nms_rotated: "if (ovr > iou_threshold) suppressed"), up to max_out boxes (negative: all).
template <typename Iou>
std::vector<int64_t> Greedy(const std::vector<int64_t>& order, double iou_max, int64_t max_out, Iou iou) {
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    if (max_out >= 0 && static_cast<int64_t>(kept.size()) >= max_out) break;
    if (std::none_of(kept.begin(), kept.end(), [&](int64_t k) { return iou(k, i) > iou_max; })) kept.push_back(i);
  }
  return kept;
}

// RotatedNMS (torch_npu's npu_nms_rotated, MMCV's nms_rotated on an NPU): dets [N, 5] (centre, size,
// angle in degrees: mode 0; mode 1's corners torch_npu documents as not supported), scores [N] ->
// selected_detections [M, 5] (the kept boxes) and keep_indices [M] (INT32), by decreasing score,
// the IoU of RotatedIou. Its prototype has the attribute iou_threshold alone: whether the kernel
// applies the score_threshold and max_output_size torch_npu also sends is not documented, so the
// result is written when they do not change it (every box above the threshold, no more kept than the
// limit) and refused otherwise. Labels (MMCV's per-class suppression) are not modelled: torch_npu
// sends a 0-d placeholder.
aclError RotatedNms(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 2)) return s;
  if (call.Int("mode", 0) != 0) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute mode = " + std::to_string(call.Int("mode", 0)) +
                                                      " is not modelled (0: centre, size and angle; torch_npu documents mode 1 "
                                                      "as not supported)");
  }
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() != 2 || dims[1] != 5) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "dets " + ListText(dims) + " is not [N, 5]");
  const int64_t n = dims[0];
  if (aclError s = Shape(call, call.inputs[1], "scores", {n})) return s;
  if (!call.inputs[2].desc->dims.empty() && Elements(call.inputs[2].desc->dims) != 0) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "labels " + ListText(call.inputs[2].desc->dims) +
                                                       ": a suppression per label is not modelled (0-d or empty labels)");
  }
  const Operand &detections = call.outputs[0], &indices = call.outputs[1];
  if (indices.desc->dtype != ACL_INT32 || detections.desc->dtype != call.inputs[0].desc->dtype) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "keep_indices is not INT32 or selected_detections not of dets' dtype");
  }
  if (static_cast<size_t>(n) * 4 > indices.buffer->size ||
      static_cast<size_t>(n) * 5 * DTypeSize(detections.desc->dtype) > detections.buffer->size) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "its outputs do not hold N = " + std::to_string(n) + " boxes");
  }
  Floats dets, score_values, out;
  if (aclError s = HostFloats(call, 0, "dets", &dets)) return s;
  if (aclError s = HostFloats(call, 1, "scores", &score_values)) return s;
  if (aclError s = FloatsOf(call, detections, "selected_detections", &out)) return s;
  std::vector<double> scores(static_cast<size_t>(n));
  std::vector<RotatedBox> boxes(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    scores[i] = score_values[i];
    boxes[i] = {dets[i * 5], dets[i * 5 + 1], dets[i * 5 + 2], dets[i * 5 + 3], dets[i * 5 + 4]};
  }
  std::vector<int64_t> order;
  if (aclError s = ScoreOrder(call, scores, &order)) return s;
  const double iou_max = call.Float("iou_threshold", 0.0f);
  auto iou = [&](int64_t a, int64_t b) { return RotatedIouOf(boxes[a], boxes[b], false); };
  const std::vector<int64_t> kept = Greedy(order, iou_max, -1, iou);
  // Unset (MMCV sends iou_threshold alone), they filter nothing.
  const bool thresholded = call.Has("score_threshold");
  const double score_min = call.Float("score_threshold", 0.0f);
  const int64_t limit = call.Int("max_output_size", -1);
  std::vector<int64_t> candidates;
  for (int64_t i : order) {
    if (!thresholded || scores[i] > score_min) candidates.push_back(i);
  }
  if (Greedy(candidates, iou_max, limit, iou) != kept) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH,
                     "score_threshold " + std::to_string(score_min) + " and max_output_size " + std::to_string(limit) +
                         " change which boxes it keeps, and whether its kernel applies them (its prototype has "
                         "iou_threshold alone) is not documented");
  }
  const auto m = static_cast<int64_t>(kept.size());
  if (aclError s = SetExtent(call, 0, {m, 5})) return s;
  if (aclError s = SetExtent(call, 1, {m})) return s;
  auto* keep = static_cast<int32_t*>(indices.buffer->data);
  for (int64_t k = 0; k < m; ++k) {
    keep[k] = static_cast<int32_t>(kept[k]);
    for (int f = 0; f < 5; ++f) out.Set(k * 5 + f, dets[kept[k] * 5 + f]);
  }
  return ACL_SUCCESS;
}

// The IoU of two axis-aligned boxes (x1, y1, x2, y2) whose widths and heights count `offset` more
// (MMDetection's legacy +1 pixel), or -1 when their union has no area.
double CornerIou(const double* p, const double* q, double offset) {
  const double w = std::max(std::min(p[2], q[2]) - std::max(p[0], q[0]) + offset, 0.0);
  const double h = std::max(std::min(p[3], q[3]) - std::max(p[1], q[1]) + offset, 0.0);
  const double inter = w * h;
  const double uni = (p[2] - p[0] + offset) * (p[3] - p[1] + offset) + (q[2] - q[0] + offset) * (q[3] - q[1] + offset) - inter;
  return uni > 0 ? inter / uni : -1.0;
}

// NMSWithMask (torch_npu's npu_nms_with_mask): box_scores [N, 5 or 8] (x1, y1, x2, y2, score, and
// columns it does not read) -> selected_boxes [N, 5] (the first five columns), selected_idx [N]
// (INT32, each row's input index) and selected_mask [N] (UINT8: 1 for a box kept), a greedy NMS
// whose IoU above iou_threshold suppresses (torch_npu's docstring: "超过此阈值" -- above the
// threshold). Left open by its documentation: whether it orders the boxes by score, and whether an
// area counts MMDetection's +1 pixel. Boxes given in strictly decreasing order of score are the same
// under either order; the areas are computed both ways, and where that changes a box's mask the call
// is refused naming it.
aclError NmsWithMask(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 3)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() != 2 || (dims[1] != 5 && dims[1] != 8)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "box_scores " + ListText(dims) + " is not [N, 5] or [N, 8]");
  }
  const int64_t n = dims[0], columns = dims[1];
  const Operand &selected = call.outputs[0], &index = call.outputs[1], &mask = call.outputs[2];
  if (aclError s = Shape(call, selected, "selected_boxes", {n, 5})) return s;
  if (aclError s = Shape(call, index, "selected_idx", {n})) return s;
  if (aclError s = Shape(call, mask, "selected_mask", {n})) return s;
  if (index.desc->dtype != ACL_INT32 || mask.desc->dtype != ACL_UINT8 || index.buffer->size < static_cast<size_t>(n) * 4 ||
      mask.buffer->size < static_cast<size_t>(n)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "selected_idx and selected_mask are not INT32 and UINT8 [N]");
  }
  Floats input, out;
  if (aclError s = HostFloats(call, 0, "box_scores", &input)) return s;
  if (aclError s = FloatsOf(call, selected, "selected_boxes", &out)) return s;
  std::vector<std::array<double, 5>> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (int f = 0; f < 5; ++f) rows[i][f] = input[i * columns + f];
    if (i > 0 && !(rows[i][4] < rows[i - 1][4])) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "box " + std::to_string(i) + "'s score is not below box " +
                                                         std::to_string(i - 1) + "'s: whether it orders the boxes by score "
                                                         "is not documented (boxes in decreasing order of score are the same "
                                                         "either way)");
    }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  const double iou_max = call.Float("iou_threshold", 0.5f);
  std::vector<int64_t> kept[2];
  for (int offset = 0; offset < 2; ++offset) {
    bool empty_union = false;
    kept[offset] = Greedy(order, iou_max, -1, [&](int64_t a, int64_t b) {
      const double iou = CornerIou(rows[a].data(), rows[b].data(), offset);
      empty_union = empty_union || iou < 0;
      return iou;
    });
    if (empty_union) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "two of its boxes have a union of no area, whose IoU is not documented");
    }
  }
  if (kept[0] != kept[1]) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "whether its areas count a +1 pixel (MMDetection's legacy boxes) is not "
                                                   "documented, and it decides which of these boxes it keeps");
  }
  auto* idx = static_cast<int32_t*>(index.buffer->data);
  auto* valid = static_cast<uint8_t*>(mask.buffer->data);
  for (int64_t i = 0; i < n; ++i) {
    for (int f = 0; f < 5; ++f) out.Set(i * 5 + f, input[i * columns + f]);
    idx[i] = static_cast<int32_t>(i);
    valid[i] = std::find(kept[0].begin(), kept[0].end(), i) != kept[0].end() ? 1 : 0;
  }
  return ACL_SUCCESS;
}

}  // namespace

const std::vector<OpEntry>& RotatedEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"RotatedBoxEncode", {{"weight", K::kListFloat}}, RotatedBoxEncode},
      {"RotatedBoxDecode", {{"weight", K::kListFloat}}, RotatedBoxDecode},
      {"RotatedIou",
       {{"trans", K::kBool}, {"mode", K::kString}, {"is_cross", K::kBool}, {"v_threshold", K::kFloat},
        {"e_threshold", K::kFloat}, {"value", K::kFloat}},
       RotatedIou},
      {"RotatedOverlaps", {{"trans", K::kBool}}, RotatedOverlaps},
      // The extents of its outputs are the data's (data_shaped: no private output).
      {"RotatedNMS",
       {{"iou_threshold", K::kFloat}, {"score_threshold", K::kFloat}, {"max_output_size", K::kInt}, {"mode", K::kInt}},
       RotatedNms, false, true},
      {"NMSWithMask", {{"iou_threshold", K::kFloat}}, NmsWithMask},
  };
  return entries;
}

}  // namespace aclsim::aclop
