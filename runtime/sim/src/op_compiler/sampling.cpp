// The aclop bridge's resizing and sampling (nn.cpp's table registers them): ResizeNearestNeighborV2,
// ResizeBilinearV2, the ResizeD operators, UpsampleNearest3d, UpsampleTrilinear3d and their
// gradients, GridSampler2D and GridSampler3D, each by the simulator's aclnn API of the same
// operation with the attributes CANN's prototype gives it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

namespace {

using Resize1dApi = Phase1<const aclTensor*, const aclIntArray*, bool, double, aclTensor*>;
using Resize2dApi = Phase1<const aclTensor*, const aclIntArray*, bool, double, double, aclTensor*>;
using GridSamplerApi = Phase1<const aclTensor*, const aclTensor*, int64_t, int64_t, bool, aclTensor*>;
using Nearest3dApi = Phase1<const aclTensor*, const aclIntArray*, double, double, double, aclTensor*>;
using Trilinear3dApi = Phase1<const aclTensor*, const aclIntArray*, bool, double, double, double, aclTensor*>;
using Nearest3dBackwardApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, double, double, double, aclTensor*>;
using Trilinear3dBackwardApi =
    Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, bool, double, double, double, aclTensor*>;
using AffineGridApi = Phase1<const aclTensor*, const aclIntArray*, bool, aclTensor*>;

}  // namespace

// ResizeNearestNeighborV2 (x NCHW, constant size [H, W]; attributes align_corners,
// half_pixel_centers): both false, TensorFlow's legacy nearest, source floor(dst * in / out), is
// PyTorch's "nearest" with the scale of the sizes, aclnnUpsampleNearest2d. The other corner modes
// are not modelled.
aclError ResizeNearest(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  if (call.Bool("align_corners", false) || call.Bool("half_pixel_centers", false)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes align_corners and half_pixel_centers: only both false is modelled");
  }
  std::vector<int64_t> size;
  if (aclError s = call.ConstInts(1, "size", &size)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<WithIntsApi>(call, "aclnnUpsampleNearest2d", x, o.Ints(size), y);
}

// ResizeBilinearV2 (x NCHW, constant size; attributes align_corners, half_pixel_centers, dtype):
// align_corners is PyTorch's align_corners=True, half_pixel_centers its align_corners=False
// (aclnnUpsampleBilinear2d, scales from the sizes); TensorFlow's legacy mode (both false) is not modelled.
aclError ResizeBilinear(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const bool align = call.Bool("align_corners", false), half_pixel = call.Bool("half_pixel_centers", false);
  if (align == half_pixel) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attributes align_corners = ") + (align ? "true" : "false") +
                                                      " and half_pixel_centers = " + (half_pixel ? "true" : "false") +
                                                      ": exactly one of them true is modelled");
  }
  std::vector<int64_t> size;
  if (aclError s = call.ConstInts(1, "size", &size)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<Resize2dApi>(call, "aclnnUpsampleBilinear2d", x, o.Ints(size), align, 0.0, 0.0, y);
}

ResizeDAttributes ReadResizeDAttributes(const OpCall& call) {
  ResizeDAttributes r;
  r.mode = call.String("mode", "nearest");
  r.transform = call.String("coordinate_transformation_mode", "half_pixel");
  const auto scales_it = call.attrs.find("scales");
  if (scales_it != call.attrs.end()) r.scales = std::get<std::vector<float>>(scales_it->second);
  const auto roi_it = call.attrs.find("roi");
  const bool roi = roi_it != call.attrs.end() && !std::get<std::vector<float>>(roi_it->second).empty();
  r.align = r.transform == "align_corners";
  r.linear = r.mode == "linear";
  r.cubic = r.mode == "cubic";
  r.spatial = r.linear ? 1 : 2;
  r.modelled = (r.linear || r.cubic) && (r.align || r.transform == "half_pixel" || r.transform == "pytorch_half_pixel") &&
               !roi && call.Int("exclude_outside", 0) == 0 && !(r.cubic && call.Float("cubic_coeff_a", -0.75f) != -0.75f) &&
               (r.scales.empty() || r.scales.size() == r.spatial);
  return r;
}

// ResizeD (x NCHW; attributes sizes, scales, coordinate_transformation_mode, mode, ...) in the modes
// ReadResizeDAttributes models: "linear" takes x [N, C, 1, W] to y [N, C, W'], "cubic" x [N, C, H, W];
// the scales are passed on.
aclError ResizeD(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const ResizeDAttributes r = ReadResizeDAttributes(call);
  const std::vector<int64_t> sizes = call.Ints("sizes");
  if (!r.modelled || sizes.size() != r.spatial) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "mode \"" + r.mode + "\", coordinate_transformation_mode \"" + r.transform +
                                                      "\", sizes " + ListText(sizes) +
                                                      ": modelled are PyTorch's linear (one size) and bicubic (two sizes, "
                                                      "cubic_coeff_a -0.75) without a region of interest");
  }
  const bool linear = r.linear;
  const Operand& x_operand = call.inputs[0];
  std::vector<int64_t> x_dims = x_operand.desc->dims;
  if (x_dims.size() != 4 || (linear && x_dims[2] != 1)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " is not NCHW" + (linear ? " with H 1" : ""));
  }
  if (linear) x_dims.erase(x_dims.begin() + 2);  // [N, C, W], the 1-d input torch_npu made 4-d
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(x_operand, "x", x_dims);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (linear) return Aclnn<Resize1dApi>(call, "aclnnUpsampleLinear1d", x, o.Ints(sizes), r.align, r.Scale(0), y);
  return Aclnn<Resize2dApi>(call, "aclnnUpsampleBicubic2d", x, o.Ints(sizes), r.align, r.Scale(0), r.Scale(1), y);
}

// GridSampler2D and GridSampler3D (x, grid; attributes interpolation_mode, padding_mode,
// align_corners, and GridSampler3D's data_format): PyTorch's grid_sample of an NCHW or NCDHW x,
// whose modes aclnnGridSampler2D and aclnnGridSampler3D number as PyTorch does.
aclError GridSampler(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const bool volume = call.type == "GridSampler3D";
  int64_t interpolation = 0, padding = 0, layout = 0;
  if (aclError s = call.Choice("interpolation_mode", "bilinear", {"bilinear", "nearest", "bicubic"}, &interpolation)) return s;
  if (aclError s = call.Choice("padding_mode", "zeros", {"zeros", "border", "reflection"}, &padding)) return s;
  if (aclError s = call.Choice("data_format", "NCDHW", {"NCDHW"}, &layout)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* grid = o.Tensor(call.inputs[1], "grid");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<GridSamplerApi>(call, volume ? "aclnnGridSampler3D" : "aclnnGridSampler2D", x, grid, interpolation, padding,
                               call.Bool("align_corners", false), y);
}

// UpsampleNearest3d and UpsampleTrilinear3d (x; output_size, scales, align_corners) and their
// gradients (grad_output; input_size, output_size, scales, align_corners): F.interpolate of an NCDHW
// x on Ascend910, by aclnnUpsampleNearest3d/Trilinear3d and their backward. scales, when given,
// are aten's scale factors of D, H and W (0: from the sizes).
aclError Upsample3d(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const bool grad = call.type.size() > 4 && call.type.compare(call.type.size() - 4, 4, "Grad") == 0;
  const bool trilinear = call.type.rfind("UpsampleTrilinear3d", 0) == 0;
  const std::vector<int64_t>& in = call.inputs[0].desc->dims;
  const std::vector<int64_t>& out = call.outputs[0].desc->dims;
  const std::vector<int64_t>& big = grad ? in : out;  // the upsampled tensor's shape
  std::vector<int64_t> size = call.Ints("output_size");
  if (size.empty() && big.size() == 5) size = {big[2], big[3], big[4]};
  const auto scales_it = call.attrs.find("scales");
  std::vector<float> scales =
      scales_it == call.attrs.end() ? std::vector<float>{} : std::get<std::vector<float>>(scales_it->second);
  if (scales.empty()) scales = {0.0f, 0.0f, 0.0f};
  if (in.size() != 5 || out.size() != 5 || size.size() != 3 || scales.size() != 3 || size[0] != big[2] || size[1] != big[3] ||
      size[2] != big[4]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "x " + ListText(in) + ", y " + ListText(out) + ", output_size " +
                                                      ListText(size) + ": not modelled (NCDHW, output_size the upsampled D, H, W)");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], grad ? "grad_output" : "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  const double d = scales[0], h = scales[1], w = scales[2];
  const bool align = call.Bool("align_corners", false);
  if (!grad && trilinear) return Aclnn<Trilinear3dApi>(call, "aclnnUpsampleTrilinear3d", x, o.Ints(size), align, d, h, w, y);
  if (!grad) return Aclnn<Nearest3dApi>(call, "aclnnUpsampleNearest3d", x, o.Ints(size), d, h, w, y);
  if (trilinear) {
    return Aclnn<Trilinear3dBackwardApi>(call, "aclnnUpsampleTrilinear3dBackward", x, o.Ints(size), o.Ints(out), align, d, h,
                                         w, y);
  }
  return Aclnn<Nearest3dBackwardApi>(call, "aclnnUpsampleNearest3dBackward", x, o.Ints(size), o.Ints(out), d, h, w, y);
}

// AffineGrid (theta [N, 2, 3] or [N, 3, 4], output_size [N, C, H, W] or [N, C, D, H, W] as a host
// value; align_corners): F.affine_grid on Ascend910, by aclnnAffineGrid. torch_npu's y is the grid
// flattened to [N, H * W, 2] (or [N, D * H * W, 3]), viewed in the API's [N, (D,) H, W, 2 or 3].
aclError AffineGrid(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> size;
  if (aclError s = call.ConstInts(1, "output_size", &size)) return s;
  const std::vector<int64_t>& y_dims = call.outputs[0].desc->dims;
  if (size.size() != 4 && size.size() != 5) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "output_size " + ListText(size) + " is not [N, C, H, W] or [N, C, D, H, W]");
  }
  std::vector<int64_t> grid{size[0]};
  grid.insert(grid.end(), size.begin() + 2, size.end());
  grid.push_back(static_cast<int64_t>(size.size()) - 2);
  const std::vector<int64_t> flat{size[0], Elements(grid) / std::max<int64_t>(1, size[0] * grid.back()), grid.back()};
  if (y_dims != flat && y_dims != grid) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "y " + ListText(y_dims) + " is not the grid of output_size " + ListText(size) +
                                                        ", " + ListText(grid) + " or flattened " + ListText(flat));
  }
  AclnnObjects o(call);
  aclTensor* theta = o.Tensor(call.inputs[0], "theta");
  aclTensor* y = o.Tensor(call.outputs[0], "y", grid);
  if (o.status()) return o.status();
  return Aclnn<AffineGridApi>(call, "aclnnAffineGrid", theta, o.Ints(size), call.Bool("align_corners", false), y);
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnAffineGrid, AffineGridApi);
ACLOP_SAME(aclnnUpsampleNearest3d, Nearest3dApi);
ACLOP_SAME(aclnnUpsampleTrilinear3d, Trilinear3dApi);
ACLOP_SAME(aclnnUpsampleNearest3dBackward, Nearest3dBackwardApi);
ACLOP_SAME(aclnnUpsampleTrilinear3dBackward, Trilinear3dBackwardApi);
ACLOP_SAME(aclnnGridSampler2D, GridSamplerApi);
ACLOP_SAME(aclnnGridSampler3D, GridSamplerApi);
ACLOP_SAME(aclnnUpsampleLinear1d, Resize1dApi);
ACLOP_SAME(aclnnUpsampleBicubic2d, Resize2dApi);
ACLOP_SAME(aclnnUpsampleBilinear2d, Resize2dApi);
ACLOP_SAME(aclnnUpsampleNearest2d, WithIntsApi);
