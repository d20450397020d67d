// The aclop bridge's vision operators, which no aclnn API computes: Iou, GIoU, DIoU, CIoU,
// NonMaxSuppressionV4, PSROIPoolingV2, DeformableOffsets, BoundingBoxEncode, BoundingBoxDecode,
// AnchorResponseFlags and YoloBoxesEncode (torch_npu's npu_iou, npu_ptiou, npu_giou, npu_diou,
// npu_ciou, npu_nms_v4, npu_ps_roi_pooling, npu_deformable_conv2d, npu_bounding_box_encode,
// npu_bounding_box_decode, npu_anchor_response_flags and npu_yolo_boxes_encode run them by type name).
// Their shapes, dtypes and attributes are checked when the call is made; the arithmetic runs in
// stream order (aclrtLaunchHostFunc) in float, the float16 and bfloat16 operands converted on the
// way in and out. The formulas are the operators' documented ones (CANN's operator prototypes, the
// papers and libraries they cite); where a detail is not documented the reading taken is said where
// it is used.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "common/dtypes.h"
#include "common/internal.h"
#include "op_compiler/bridge.h"
#include "op_compiler/host_kernel.h"

namespace aclsim::aclop {

namespace {

// A box's corners: x1 <= x2 and y1 <= y2 are the caller's (the operators do not reorder them).
struct Box {
  float x1, y1, x2, y2;
};

// Iou's and GIoU's operands: the two sets of boxes and the overlap they write, read as float.
aclError BoxOperands(const OpCall& call, Floats* boxes, Floats* gt, Floats* overlap) {
  if (aclError s = FloatsOf(call, call.inputs[0], "bboxes", boxes)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "gtboxes", gt)) return s;
  return FloatsOf(call, call.outputs[0], "overlap", overlap);
}

// Iou: the overlap of every pair of bboxes [N, 4] and gtboxes [M, 4] (x1, y1, x2, y2), y [M, N]:
// intersection over union ("iou") or over the ground-truth box's area ("iof"). `eps` is read as
// MMDetection's pixel offset, which the prototype says it is compatible with: added to every width
// and height (mmcv's NPU adapter passes eps 1 for its legacy +1 boxes and 0.01 for offset 0, and
// torch_npu passes 0.01), so w = x2 - x1 + eps and the intersection's max(min(x2) - max(x1) + eps, 0).
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
      const Box g = box(gt, j);
      const float g_area = (g.x2 - g.x1 + eps) * (g.y2 - g.y1 + eps);
      for (int64_t i = 0; i < n; ++i) {
        const Box b = box(boxes, i);
        const float w = std::max(std::min(b.x2, g.x2) - std::max(b.x1, g.x1) + eps, 0.0f);
        const float h = std::max(std::min(b.y2, g.y2) - std::max(b.y1, g.y1) + eps, 0.0f);
        const float inter = w * h;
        const float b_area = (b.x2 - b.x1 + eps) * (b.y2 - b.y1 + eps);
        y.Set(j * n + i, inter / (iof ? g_area : b_area + g_area - inter));
      }
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
      const float a = f[i], b = f[count + i], c = f[2 * count + i], d = f[3 * count + i];
      return trans ? Box{a - c / 2, b - d / 2, a + c / 2, b + d / 2} : Box{a, b, c, d};
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

float Intersection(const Box& p, const Box& q) {
  return std::max(std::min(p.x2, q.x2) - std::max(p.x1, q.x1), 0.0f) *
         std::max(std::min(p.y2, q.y2) - std::max(p.y1, q.y1), 0.0f);
}

float Area(const Box& p) { return (p.x2 - p.x1) * (p.y2 - p.y1); }

// IoU - (squared distance of the centres) / (squared diagonal of the smallest box enclosing both):
// DIoU's penalty (Zheng et al., 2020), CIoU's first.
float DistanceIou(const Box& p, const Box& q) {
  const float inter = Intersection(p, q);
  const float iou = inter / (Area(p) + Area(q) - inter);
  const float dx = (p.x1 + p.x2 - q.x1 - q.x2) / 2, dy = (p.y1 + p.y2 - q.y1 - q.y2) / 2;
  const float cw = std::max(p.x2, q.x2) - std::min(p.x1, q.x1), ch = std::max(p.y2, q.y2) - std::min(p.y1, q.y1);
  return iou - (dx * dx + dy * dy) / (cw * cw + ch * ch);
}

// GIoU: generalised IoU (Rezatofighi et al., 2019), IoU - (hull - union) / hull with hull the
// smallest box enclosing both.
aclError GIoU(const OpCall& call) {
  return RowBoxOverlaps(call, 1, [](const Box& p, const Box& q, float* out) {
    const float inter = Intersection(p, q);
    const float uni = Area(p) + Area(q) - inter;
    const float hull = (std::max(p.x2, q.x2) - std::min(p.x1, q.x1)) * (std::max(p.y2, q.y2) - std::min(p.y1, q.y1));
    out[0] = inter / uni - (hull - uni) / hull;
  });
}

// DIoU: distance IoU (Zheng et al., 2020).
aclError DIoU(const OpCall& call) {
  return RowBoxOverlaps(call, 1, [](const Box& p, const Box& q, float* out) { out[0] = DistanceIou(p, q); });
}

// CIoU: complete IoU (Zheng et al., 2020), DIoU - alpha v with v = 4 / pi^2 (atan(w_gt / h_gt) -
// atan(w / h))^2 and alpha = v / (1 - IoU + v). Its second output, atan_sub (what CIoUGrad reads),
// is read as the difference squared in v, atan(w_gt / h_gt) - atan(w / h): torch_npu returns only
// the overlap.
aclError CIoU(const OpCall& call) {
  return RowBoxOverlaps(call, 2, [](const Box& p, const Box& q, float* out) {
    const float inter = Intersection(p, q);
    const float iou = inter / (Area(p) + Area(q) - inter);
    const float atan_sub = std::atan((q.x2 - q.x1) / (q.y2 - q.y1)) - std::atan((p.x2 - p.x1) / (p.y2 - p.y1));
    constexpr float kPi = 3.14159265358979f;
    const float v = 4.0f / (kPi * kPi) * atan_sub * atan_sub;
    out[0] = DistanceIou(p, q) - v * v / (1.0f - iou + v);
    out[1] = atan_sub;
  });
}

// The value of a one-element input, which torch_npu passes NonMaxSuppressionV4's limits in device
// memory (OpCall::ConstFloat reads it after the work queued before the call).
aclError ScalarInput(const OpCall& call, size_t input, const char* what, double* value) {
  return call.ConstFloat(input, what, value);
}

// NonMaxSuppressionV4 (TensorFlow's, which the prototype is compatible with): greedy selection
// of boxes [N, 4] (two corners, in either order) by decreasing score (ties: the lower index
// first), keeping a box whose score is above score_threshold and whose IoU with every box kept
// before it is at most iou_threshold, up to max_output_size boxes. selected_indices
// [max_output_size] holds their indices, then zeros (whether pad_to_max_output_size or not: the
// output's length is the caller's); valid_outputs their number.
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
    std::vector<int64_t> order;
    for (int64_t i = 0; i < n; ++i) {
      if (scores[i] > score_min) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
    auto box = [&](int64_t i) {
      const float a = boxes[i * 4], b = boxes[i * 4 + 1], c = boxes[i * 4 + 2], d = boxes[i * 4 + 3];
      return Box{std::min(a, c), std::min(b, d), std::max(a, c), std::max(b, d)};
    };
    auto iou = [](const Box& p, const Box& q) {
      const float pa = (p.x2 - p.x1) * (p.y2 - p.y1), qa = (q.x2 - q.x1) * (q.y2 - q.y1);
      if (pa <= 0 || qa <= 0) return 0.0f;
      const float inter = std::max(std::min(p.x2, q.x2) - std::max(p.x1, q.x1), 0.0f) *
                          std::max(std::min(p.y2, q.y2) - std::max(p.y1, q.y1), 0.0f);
      return inter / (pa + qa - inter);
    };
    std::vector<int64_t> kept;
    for (int64_t i : order) {
      if (static_cast<int64_t>(kept.size()) >= max_out) break;
      const Box b = box(i);
      if (std::all_of(kept.begin(), kept.end(), [&](int64_t k) { return iou(box(k), b) <= iou_max; })) kept.push_back(i);
    }
    for (int64_t i = 0; i < length; ++i) out[i] = i < static_cast<int64_t>(kept.size()) ? static_cast<int32_t>(kept[i]) : 0;
    *count = static_cast<int32_t>(kept.size());
  });
}

// PSROIPoolingV2: position-sensitive RoI average pooling as R-FCN defines it (Dai et al., 2016;
// its Caffe layer's arithmetic): x [B, output_dim * group_size^2, H, W], rois [B, 5, R] (batch
// index, x1, y1, x2, y2 in input coordinates), y [B * R, output_dim, group_size, group_size]. A
// RoI spans round(x1) * scale to (round(x2) + 1) * scale (at least 0.1 wide), cut into
// group_size^2 bins; bin (i, j) of output channel c averages channel (c * group_size + i) *
// group_size + j over the pixels it covers (floor of its start, ceiling of its end, clipped to
// the map), 0 when it covers none.
aclError PSROIPoolingV2(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const int64_t dim = call.Int("output_dim", 0), group = call.Int("group_size", 0);
  const float scale = call.Float("spatial_scale", 1.0f);
  if (dim <= 0 || group <= 0 || group >= 128) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes output_dim = " + std::to_string(dim) + " and group_size = " +
                                                      std::to_string(group) + " (output_dim > 0, 0 < group_size < 128)");
  }
  Floats x, rois, y;
  if (aclError s = FloatsOf(call, call.inputs[0], "x", &x)) return s;
  if (aclError s = FloatsOf(call, call.inputs[1], "rois", &rois)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "y", &y)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& r_dims = call.inputs[1].desc->dims;
  if (!PlainFormat(call.inputs[0].desc->format) || call.inputs[0].desc->format == ACL_FORMAT_NHWC ||
      x_dims.size() != 4 || x_dims[1] != dim * group * group) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " is not NCHW with C = output_dim * group_size^2 = " +
                                                       std::to_string(dim * group * group));
  }
  if (r_dims.size() != 3 || r_dims[0] != x_dims[0] || r_dims[1] != 5) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "rois " + ListText(r_dims) + " is not [B, 5, R] with B x's batch");
  }
  const int64_t batch = x_dims[0], height = x_dims[2], width = x_dims[3], count = r_dims[2];
  if (aclError s = Shape(call, call.outputs[0], "y", {batch * count, dim, group, group})) return s;
  return Launch(call, [=] {
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t r = 0; r < count; ++r) {
        auto roi = [&](int64_t field) { return rois[(b * 5 + field) * count + r]; };
        const int64_t image = std::clamp<int64_t>(static_cast<int64_t>(roi(0)), 0, batch - 1);
        const float x1 = std::round(roi(1)) * scale, y1 = std::round(roi(2)) * scale;
        const float x2 = (std::round(roi(3)) + 1) * scale, y2 = (std::round(roi(4)) + 1) * scale;
        const float bin_w = std::max(x2 - x1, 0.1f) / static_cast<float>(group);
        const float bin_h = std::max(y2 - y1, 0.1f) / static_cast<float>(group);
        const int64_t out_row = b * count + r;
        for (int64_t c = 0; c < dim; ++c) {
          for (int64_t i = 0; i < group; ++i) {
            const auto h0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(i * bin_h + y1)), 0, height);
            const auto h1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((i + 1) * bin_h + y1)), 0, height);
            for (int64_t j = 0; j < group; ++j) {
              const auto w0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(j * bin_w + x1)), 0, width);
              const auto w1 = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((j + 1) * bin_w + x1)), 0, width);
              const int64_t channel = (c * group + i) * group + j;
              float sum = 0;
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t w = w0; w < w1; ++w) sum += x[((image * dim * group * group + channel) * height + h) * width + w];
              }
              const int64_t area = (h1 - h0) * (w1 - w0);
              y.Set(((out_row * dim + c) * group + i) * group + j, area > 0 ? sum / static_cast<float>(area) : 0.0f);
            }
          }
        }
      }
    }
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

}  // namespace

const std::vector<OpEntry>& VisionEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"Iou", {{"mode", K::kString}, {"eps", K::kFloat}}, Iou},
      {"GIoU", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}}, GIoU},
      {"DIoU", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}}, DIoU},
      {"CIoU", {{"trans", K::kBool}, {"is_cross", K::kBool}, {"mode", K::kString}, {"atan_sub_flag", K::kBool}}, CIoU},
      {"NonMaxSuppressionV4", {{"pad_to_max_output_size", K::kBool}}, NonMaxSuppressionV4},
      {"PSROIPoolingV2", {{"spatial_scale", K::kFloat}, {"output_dim", K::kInt}, {"group_size", K::kInt}}, PSROIPoolingV2},
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
  };
  return entries;
}

}  // namespace aclsim::aclop
