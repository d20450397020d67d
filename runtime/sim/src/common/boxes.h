// The overlap formulas of axis-aligned boxes, one home for the two paths that compute them: the
// aclop bridge's Iou, GIoU, DIoU, CIoU and their gradients (op_compiler/vision.cpp, torch_npu's
// acl_op path) and the aclnn APIs aclnnIou and aclnnCIoU (opapi/families/box_overlap.cpp, op-plugin's
// path on Ascend950), so that the two cannot drift apart.
//
// Coordinates are float, or any type with +, -, *, / and a Value() (vision.cpp's Dual, by which the
// gradients differentiate these very formulas; its Value is found by argument-dependent lookup).
#ifndef ACLNN_SIM_COMMON_BOXES_H_
#define ACLNN_SIM_COMMON_BOXES_H_

#include <algorithm>
#include <cmath>

namespace aclsim::boxes {

// A box's corners: x1 <= x2 and y1 <= y2 are the caller's (the operators do not reorder them).
template <typename T>
struct BoxOf {
  T x1, y1, x2, y2;
};
using Box = BoxOf<float>;

inline float Value(float x) { return x; }

// std::max's and std::min's choice (the first on a tie), for float and a differentiable type alike:
// a derivative where the formula is not differentiable is the branch's taken.
template <typename T>
T Max(const T& a, const T& b) {
  return Value(a) < Value(b) ? b : a;
}
template <typename T>
T Min(const T& a, const T& b) {
  return Value(b) < Value(a) ? b : a;
}

// A box from its four coordinate values: corners, or when `trans` centre and size (GIoU's, DIoU's
// and CIoU's trans attribute, torch_npu's xywh boxes).
template <typename T>
BoxOf<T> RowBox(const T& a, const T& b, const T& c, const T& d, bool trans) {
  if (!trans) return {a, b, c, d};
  return {a - c / 2.0f, b - d / 2.0f, a + c / 2.0f, b + d / 2.0f};
}

template <typename T>
T Intersection(const BoxOf<T>& p, const BoxOf<T>& q) {
  return Max(Min(p.x2, q.x2) - Max(p.x1, q.x1), T{}) * Max(Min(p.y2, q.y2) - Max(p.y1, q.y1), T{});
}

template <typename T>
T Area(const BoxOf<T>& p) {
  return (p.x2 - p.x1) * (p.y2 - p.y1);
}

// Iou's overlap of box b and ground-truth box g: intersection over union, or with `iof` over g's
// area. `eps` is read as MMDetection's pixel offset, which the operator's prototype says it is
// compatible with: added to every width and height (mmcv's NPU adapter passes eps 1 for its legacy
// +1 boxes and 0.01 for offset 0, and torch_npu passes 0.01), so w = x2 - x1 + eps and the
// intersection's max(min(x2) - max(x1) + eps, 0).
inline float PixelIou(const Box& b, const Box& g, float eps, bool iof) {
  const float w = std::max(std::min(b.x2, g.x2) - std::max(b.x1, g.x1) + eps, 0.0f);
  const float h = std::max(std::min(b.y2, g.y2) - std::max(b.y1, g.y1) + eps, 0.0f);
  const float inter = w * h;
  const float g_area = (g.x2 - g.x1 + eps) * (g.y2 - g.y1 + eps);
  const float b_area = (b.x2 - b.x1 + eps) * (b.y2 - b.y1 + eps);
  return inter / (iof ? g_area : b_area + g_area - inter);
}

// IoU - (squared distance of the centres) / (squared diagonal of the smallest box enclosing both):
// DIoU's penalty (Zheng et al., 2020), CIoU's first.
template <typename T>
T DistanceIou(const BoxOf<T>& p, const BoxOf<T>& q) {
  const T inter = Intersection(p, q);
  const T iou = inter / (Area(p) + Area(q) - inter);
  const T dx = (p.x1 + p.x2 - q.x1 - q.x2) / 2.0f, dy = (p.y1 + p.y2 - q.y1 - q.y2) / 2.0f;
  const T cw = Max(p.x2, q.x2) - Min(p.x1, q.x1), ch = Max(p.y2, q.y2) - Min(p.y1, q.y1);
  return iou - (dx * dx + dy * dy) / (cw * cw + ch * ch);
}

// Generalised IoU (Rezatofighi et al., 2019): IoU - (hull - union) / hull with hull the smallest
// box enclosing both.
template <typename T>
T GeneralisedIou(const BoxOf<T>& p, const BoxOf<T>& q) {
  const T inter = Intersection(p, q);
  const T uni = Area(p) + Area(q) - inter;
  const T hull = (Max(p.x2, q.x2) - Min(p.x1, q.x1)) * (Max(p.y2, q.y2) - Min(p.y1, q.y1));
  return inter / uni - (hull - uni) / hull;
}

// Complete IoU (Zheng et al., 2020) of box p and ground-truth box q: DIoU - alpha v with
// v = 4 / pi^2 (atan(w_gt / h_gt) - atan(w / h))^2 and alpha = v / (1 - IoU + v). `atan_sub`
// receives the difference squared in v, atan(w_gt / h_gt) - atan(w / h): CIoU's second output, which
// its gradient reads (torch_npu returns only the overlap).
inline float CompleteIou(const Box& p, const Box& q, float* atan_sub) {
  const float inter = Intersection(p, q);
  const float iou = inter / (Area(p) + Area(q) - inter);
  *atan_sub = std::atan((q.x2 - q.x1) / (q.y2 - q.y1)) - std::atan((p.x2 - p.x1) / (p.y2 - p.y1));
  constexpr float kPi = 3.14159265358979f;
  const float v = 4.0f / (kPi * kPi) * *atan_sub * *atan_sub;
  return DistanceIou(p, q) - v * v / (1.0f - iou + v);
}

}  // namespace aclsim::boxes

#endif  // ACLNN_SIM_COMMON_BOXES_H_
