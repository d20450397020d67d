// RoIAlign's geometry, one home for the two paths that compute it: the aclop bridge's ROIAlign and
// ROIAlignGrad (op_compiler/vision.cpp, torch_npu's acl_op path) and the aclnn APIs aclnnROIAlign and
// aclnnROIAlignBackward (opapi/families/roi_align.cpp, op-plugin's path wherever libopapi has them).
//
// Mask R-CNN's RoIAlign as torchvision and Detectron2 compute it, which torch_npu's npu_roi_align
// follows: its contrib ROIAlign sends roi_end_mode 0 for aligned=False and 3 for aligned=True, "scale
// the ROI and then shift it by -0.5", and its documented example is torchvision's aligned=False value.
// rois [R, 5]: batch index, x1, y1, x2, y2 in input coordinates. A RoI spans (x1, y1) * spatial_scale
// to (x2, y2) * spatial_scale, shifted by -0.5 when aligned, else at least 1 x 1; each of the
// pooled_height x pooled_width bins averages a grid of sample_num x sample_num bilinear samples at the
// centres of its cells (sample_num 0: ceil(bin size) each way), a sample more than one pixel outside
// the map counting 0. roi_end_mode 1 and 2 are not modelled: no source at hand says what they change.
#ifndef ACLNN_SIM_COMMON_ROI_ALIGN_H_
#define ACLNN_SIM_COMMON_ROI_ALIGN_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace aclsim::roi_align {

// The roi_end_mode values modelled (the others are refused by name).
inline bool ModelledEndMode(int64_t mode) { return mode == 0 || mode == 3; }
inline const char* ModelledEndModes() { return "0: torchvision's aligned=False, 3: aligned=True"; }

// A RoI's batch index, read toward zero as torchvision's kernels read it (`int roi_batch_ind =
// offset_rois[0]`, a float converted to an integer); -1 when that index is outside [0, images) or the
// value is not a number, which the callers refuse rather than read another image.
inline int64_t BatchIndex(float value, int64_t images) {
  if (!(value > -1.0f && value < static_cast<float>(images))) return -1;
  return static_cast<int64_t>(value);
}

struct Geometry {
  int64_t channels, height, width, pooled_h, pooled_w, sample_num;
  float scale;
  bool aligned;

  // One bilinear sample at (y, x): the offsets in a channel plane of the four pixels it reads (the
  // same pixel twice at the map's last row or column) and their weights; none when it lies more
  // than a pixel outside the map (inside false: it counts 0).
  struct Sample {
    int64_t at[4];
    float weight[4];
    bool inside;
  };
  Sample At(float y, float x) const {
    Sample s{};
    if (y < -1.0f || y > static_cast<float>(height) || x < -1.0f || x > static_cast<float>(width)) return s;
    y = std::max(y, 0.0f);
    x = std::max(x, 0.0f);
    int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= height - 1) y0 = y1 = height - 1, y = static_cast<float>(y0);
    if (x0 >= width - 1) x0 = x1 = width - 1, x = static_cast<float>(x0);
    const float ly = y - static_cast<float>(y0), lx = x - static_cast<float>(x0);
    s = {{y0 * width + x0, y0 * width + x1, y1 * width + x0, y1 * width + x1},
         {(1 - ly) * (1 - lx), (1 - ly) * lx, ly * (1 - lx), ly * lx},
         true};
    return s;
  }

  // Calls visit(bin, sample, 1 / samples in the bin) for every sample of RoI `roi` (its four
  // corners, unscaled).
  template <typename Visit>
  void ForEachSample(const float roi[4], Visit visit) const {
    const float offset = aligned ? 0.5f : 0.0f;
    const float x1 = roi[0] * scale - offset, y1 = roi[1] * scale - offset;
    float w = roi[2] * scale - offset - x1, h = roi[3] * scale - offset - y1;
    if (!aligned) w = std::max(w, 1.0f), h = std::max(h, 1.0f);
    const float bin_h = h / static_cast<float>(pooled_h), bin_w = w / static_cast<float>(pooled_w);
    const int64_t grid_h = sample_num > 0 ? sample_num : static_cast<int64_t>(std::ceil(h / static_cast<float>(pooled_h)));
    const int64_t grid_w = sample_num > 0 ? sample_num : static_cast<int64_t>(std::ceil(w / static_cast<float>(pooled_w)));
    const float share = 1.0f / static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
    for (int64_t ph = 0; ph < pooled_h; ++ph) {
      for (int64_t pw = 0; pw < pooled_w; ++pw) {
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const float y = y1 + static_cast<float>(ph) * bin_h + (static_cast<float>(iy) + 0.5f) * bin_h / static_cast<float>(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix) {
            const float x = x1 + static_cast<float>(pw) * bin_w + (static_cast<float>(ix) + 0.5f) * bin_w / static_cast<float>(grid_w);
            visit(ph * pooled_w + pw, At(y, x), share);
          }
        }
      }
    }
  }

  // The forward over `count` RoIs: y[r, c, bin] the mean of its samples of x's image images[r]
  // (BatchIndex's, checked by the caller); x [N, C, H, W] and rois [R, 5] read by x[i] and rois[i]
  // (a float pointer, or the aclop bridge's Floats), y contiguous floats.
  template <typename Map, typename Rois>
  void Forward(const Map& x, const Rois& rois, const int64_t* images, int64_t count, float* y) const {
    const int64_t plane = height * width, bins = pooled_h * pooled_w;
    for (int64_t r = 0; r < count; ++r) {
      const float roi[4] = {rois[r * 5 + 1], rois[r * 5 + 2], rois[r * 5 + 3], rois[r * 5 + 4]};
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t base = (images[r] * channels + c) * plane;
        float* out = y + (r * channels + c) * bins;
        std::fill(out, out + bins, 0.0f);
        ForEachSample(roi, [&](int64_t bin, const Sample& s, float share) {
          if (!s.inside) return;
          for (int k = 0; k < 4; ++k) out[bin] += share * s.weight[k] * x[base + s.at[k]];
        });
      }
    }
  }

  // Its adjoint (torchvision's roi_align backward): every sample's share of its bin's gradient dy
  // [R, C, bins] added to the pixels it read, by their bilinear weights, into dx [N, C, H, W]
  // (zeroed by the caller); dy and rois read as Forward reads x and rois.
  template <typename Grad, typename Rois>
  void Backward(const Grad& dy, const Rois& rois, const int64_t* images, int64_t count, float* dx) const {
    const int64_t plane = height * width, bins = pooled_h * pooled_w;
    for (int64_t r = 0; r < count; ++r) {
      const float roi[4] = {rois[r * 5 + 1], rois[r * 5 + 2], rois[r * 5 + 3], rois[r * 5 + 4]};
      for (int64_t c = 0; c < channels; ++c) {
        float* map = dx + (images[r] * channels + c) * plane;
        const int64_t grad = (r * channels + c) * bins;
        ForEachSample(roi, [&](int64_t bin, const Sample& s, float share) {
          if (!s.inside) return;
          const float upstream = dy[grad + bin] * share;
          for (int k = 0; k < 4; ++k) map[s.at[k]] += upstream * s.weight[k];
        });
      }
    }
  }
};

}  // namespace aclsim::roi_align

#endif  // ACLNN_SIM_COMMON_ROI_ALIGN_H_
