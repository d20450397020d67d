// The aclop bridge's windows over a tensor (nn.cpp's table registers them): Im2col and Col2im, the
// 3-d average and max pools and their gradients, and MaxPoolWithArgmaxV1 and its gradient, each by
// the simulator's aclnn API of the same operation with the attributes CANN's prototype gives it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/host_kernel.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

namespace {

using Im2colApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, const aclIntArray*, const aclIntArray*,
                         const aclTensor*>;
using AvgPool3dApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, const aclIntArray*, bool, bool, int64_t,
                            aclTensor*>;
using AvgPool3dBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclIntArray*, const aclIntArray*,
                                    const aclIntArray*, bool, bool, int64_t, aclTensor*>;
using MaxPool3dApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, const aclIntArray*, const aclIntArray*,
                            bool, aclTensor*, aclTensor*>;
using MaxPool3dBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclIntArray*,
                                    const aclIntArray*, const aclIntArray*, const aclIntArray*, bool, aclTensor*>;

// AvgPool3D's and AvgPool3DGrad's window (ksize, strides of 3 or 5 values; pads front, back, top,
// bottom, left, right, symmetric; ceil_mode, count_include_pad, divisor_override; data_format NCDHW).
struct AvgPool3dWindow {
  std::vector<int64_t> kernel, stride, padding;
  bool ceil_mode = false, count_include_pad = true;
  int64_t divisor_override = 0;
};

aclError ReadAvgPool3dWindow(const OpCall& call, AvgPool3dWindow* w) {
  auto triple = [](const std::vector<int64_t>& v) {
    if (v.size() == 1) return std::vector<int64_t>{v[0], v[0], v[0]};
    if (v.size() == 5) return std::vector<int64_t>{v[2], v[3], v[4]};
    return v;
  };
  const std::vector<int64_t> ksize = call.Ints("ksize"), strides = call.Ints("strides"), pads = call.Ints("pads", {0, 0, 0, 0, 0, 0});
  w->kernel = triple(ksize);
  w->stride = triple(strides);
  if (call.String("data_format", "NDHWC") != "NCDHW" || w->kernel.size() != 3 || w->stride.size() != 3 || pads.size() != 6 ||
      pads[0] != pads[1] || pads[2] != pads[3] || pads[4] != pads[5]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "data_format " + call.String("data_format", "NDHWC") + ", ksize " +
                                                      ListText(ksize) + ", strides " + ListText(strides) + ", pads " +
                                                      ListText(pads) + ": not modelled (NCDHW, symmetric pads are)");
  }
  w->padding = {pads[0], pads[2], pads[4]};
  w->ceil_mode = call.Bool("ceil_mode", false);
  w->count_include_pad = call.Bool("count_include_pad", true);
  w->divisor_override = call.Int("divisor_override", 0);
  return ACL_SUCCESS;
}

// MaxPool3D's and MaxPool3DGrad's window (ksize, strides, dilation of 5 values or 3; pads front,
// back, top, bottom, left, right; padding CALCULATED, data_format NCDHW), for the NCDHW x and the
// pooled shape. For F.max_pool3d's ceil_mode torch_npu adds to the back pads where the ceil size
// needs it: the pooled shape must be the ceil-mode (or, without it, the floor) one of the front pads,
// which aclnnMaxPool3dWithArgmax computes (the padding holds no element); other pads are refused.
struct MaxPool3dWindow {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

aclError ReadMaxPool3dWindow(const OpCall& call, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                             MaxPool3dWindow* w) {
  auto spatial = [](const std::vector<int64_t>& v) {
    if (v.size() == 5) return std::vector<int64_t>{v[2], v[3], v[4]};
    if (v.size() == 1) return std::vector<int64_t>{v[0], v[0], v[0]};
    return v;
  };
  const std::vector<int64_t> ksize = call.Ints("ksize"), strides = call.Ints("strides"), pads = call.Ints("pads", {0, 0, 0, 0, 0, 0}),
                             dilation = call.Ints("dilation", {1, 1, 1, 1, 1});
  w->kernel = spatial(ksize);
  w->stride = spatial(strides);
  w->dilation = spatial(dilation);
  const std::string what = "data_format " + call.String("data_format", "NDHWC") + ", padding " +
                           call.String("padding", "CALCULATED") + ", ksize " + ListText(ksize) + ", strides " +
                           ListText(strides) + ", pads " + ListText(pads) + ", dilation " + ListText(dilation) + ", x " +
                           ListText(x) + ", pooled " + ListText(y);
  if (call.String("data_format", "NDHWC") != "NCDHW" || call.String("padding", "CALCULATED") != "CALCULATED" ||
      w->kernel.size() != 3 || w->stride.size() != 3 || w->dilation.size() != 3 || pads.size() != 6 || x.size() != 5 ||
      y.size() != 5) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, what + ": not modelled (NCDHW, CALCULATED, 5-d x and output are)");
  }
  w->padding = {pads[0], pads[2], pads[4]};
  bool floor_fits = true, ceil_fits = true;
  for (size_t i = 0; i < 3; ++i) {
    const int64_t length = x[2 + i], pad = w->padding[i], span = w->dilation[i] * (w->kernel[i] - 1) + 1, s = w->stride[i];
    if (pads[2 * i + 1] < pad || s < 1) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, what + ": not modelled");
    const int64_t floor_size = (length + 2 * pad - span) / s + 1;
    int64_t ceil_size = (length + 2 * pad - span + s - 1) / s + 1;
    if ((ceil_size - 1) * s >= length + pad) --ceil_size;  // aten's rule: the last window starts inside
    floor_fits = floor_fits && y[2 + i] == floor_size;
    ceil_fits = ceil_fits && y[2 + i] == ceil_size;
  }
  w->ceil_mode = call.Int("ceil_mode", 0) != 0 || !floor_fits;
  if (!(w->ceil_mode ? ceil_fits : floor_fits)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, what + ": the pooled shape is not the " +
                                                      (w->ceil_mode ? "ceil" : "floor") + " one of the front pads");
  }
  return ACL_SUCCESS;
}

// MaxPoolWithArgmaxV1 and MaxPoolGradWithArgmaxV1: the max pool torch_npu runs on Ascend910 for
// F.max_pool2d (and max_pool1d, adaptive_max_pool2d) and its gradient, on NCHW x. Attributes in NHWC
// order (ksize [1, kH, kW, 1], strides, pads [1, pH, pW, 1], dilation); the pooled shape is y's, as
// torch_npu sized it (ceil_mode included). The argmax is a bit mask only the gradient reads, UINT16
// [N, C, kH * kW, blocks] as torch_npu allocates it (blocks = ceil(Hout * Wout / 16) + 1): bit
// p % 16 of word [n, c, k, p / 16] is set when output position p took its value from window
// position k. CANN documents no layout of its own for these bits (its kernel keeps them per C0
// lane), so the layout is the simulator's, shared by the two kernels here. Host kernels: no aclnn
// API writes this mask.
struct MaxPoolV1 {
  int64_t n = 0, c = 0, h = 0, w = 0, out_h = 0, out_w = 0, blocks = 0;
  int64_t kernel_h = 0, kernel_w = 0, stride_h = 0, stride_w = 0, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;

  int64_t Window() const { return kernel_h * kernel_w; }
  // The input position (row, column) of window position k for output position (oh, ow); false when
  // it lies in the padding.
  bool At(int64_t oh, int64_t ow, int64_t k, int64_t* row, int64_t* col) const {
    *row = oh * stride_h - pad_h + (k / kernel_w) * dilation_h;
    *col = ow * stride_w - pad_w + (k % kernel_w) * dilation_w;
    return *row >= 0 && *row < h && *col >= 0 && *col < w;
  }
};

aclError ReadMaxPoolV1(const OpCall& call, const Operand& x, const Operand& pooled, const Operand& argmax, MaxPoolV1* p) {
  // The forward names its dilation "dilation", torch_npu's gradient call "dilations".
  const std::vector<int64_t> ksize = call.Ints("ksize"), strides = call.Ints("strides"), pads = call.Ints("pads"),
                             dilation = call.Has("dilations") ? call.Ints("dilations") : call.Ints("dilation", {1, 1, 1, 1});
  // An unbatched CHW x (F.max_pool2d of a 3-d input) is one plane batch.
  auto batched = [](std::vector<int64_t> dims) {
    if (dims.size() == 3) dims.insert(dims.begin(), 1);
    return dims;
  };
  const std::vector<int64_t> xd = batched(x.desc->dims), yd = batched(pooled.desc->dims);
  if (ksize.size() != 4 || strides.size() != 4 || pads.size() != 4 || dilation.size() != 4 || xd.size() != 4 ||
      yd.size() != 4 || yd[0] != xd[0] || yd[1] != xd[1]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "ksize " + ListText(ksize) + ", strides " + ListText(strides) + ", pads " +
                                                      ListText(pads) + ", dilation " + ListText(dilation) + ", x " +
                                                      ListText(xd) + ", pooled " + ListText(yd) +
                                                      ": not modelled (4 values each, NCHW x and output, are)");
  }
  *p = {xd[0], xd[1], xd[2], xd[3], yd[2], yd[3], (yd[2] * yd[3] + 15) / 16 + 1,
        ksize[1], ksize[2], strides[1], strides[2], pads[1], pads[2], dilation[1], dilation[2]};
  if (p->kernel_h < 1 || p->kernel_w < 1 || p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 || p->dilation_w < 1) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "a window of ksize " + ListText(ksize) + ", strides " + ListText(strides) +
                                                      ", dilation " + ListText(dilation) + " (values below 1)");
  }
  const std::vector<int64_t> mask = {p->n, p->c, p->Window(), p->blocks};
  if (argmax.desc->dtype != ACL_UINT16 || batched(argmax.desc->dims) != mask ||
      static_cast<size_t>(Elements(mask)) * 2 > argmax.buffer->size || !PlainFormat(argmax.desc->format)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "argmax " + ListText(argmax.desc->dims) + " of " +
                                                       DTypeName(argmax.desc->dtype) + ": not the plain UINT16 mask " +
                                                       ListText(mask) + " the pooled shape " + ListText(yd) + " takes");
  }
  return ACL_SUCCESS;
}

}  // namespace

// Im2col (x; ksizes, strides, dilations, padding_mode, pads): F.unfold of an NCHW x as torch_npu
// gives it on Ascend910, y [N, C * kH * kW, L] as aten's, by aclnnIm2col; pads (top, bottom, left,
// right) symmetric, padding_mode CALCULATED.
aclError Im2col(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t> ksizes = call.Ints("ksizes"), strides = call.Ints("strides", {1}), dilations = call.Ints("dilations", {1}),
                             pads = call.Ints("pads", {0});
  auto pair = [](const std::vector<int64_t>& v) { return v.size() == 1 ? std::vector<int64_t>{v[0], v[0]} : v; };
  const std::vector<int64_t> kernel = pair(ksizes), stride = pair(strides), dilation = pair(dilations);
  std::vector<int64_t> padding;
  if (pads.size() == 1) padding = {pads[0], pads[0]};
  else if (pads.size() == 2) padding = pads;
  else if (pads.size() == 4 && pads[0] == pads[1] && pads[2] == pads[3]) padding = {pads[0], pads[2]};
  if (call.String("padding_mode", "CALCULATED") != "CALCULATED" || kernel.size() != 2 || stride.size() != 2 ||
      dilation.size() != 2 || padding.size() != 2 || call.inputs[0].desc->dims.size() != 4) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "padding_mode " + call.String("padding_mode", "CALCULATED") + ", ksizes " +
                                                      ListText(ksizes) + ", strides " + ListText(strides) + ", dilations " +
                                                      ListText(dilations) + ", pads " + ListText(pads) + " of x " +
                                                      ListText(call.inputs[0].desc->dims) +
                                                      ": not modelled (CALCULATED, symmetric pads, NCHW x are)");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<Im2colApi>(call, "aclnnIm2col", x, o.Ints(kernel), o.Ints(dilation), o.Ints(padding), o.Ints(stride), y);
}

// Col2im (x [N, C, kH * kW, L], output_size [H, W]; kernel_size, dilation, padding, stride): F.fold
// (and F.unfold's gradient) on Ascend910, y [N, C, H, W] the sum of each column's values at the
// positions its window covers, as aten's col2im. A host kernel: no aclnn API on hand computes it.
aclError Col2im(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> size;
  if (aclError s = call.ConstInts(1, "output_size", &size)) return s;
  const std::vector<int64_t> kernel = call.Ints("kernel_size"), dilation = call.Ints("dilation"), padding = call.Ints("padding"),
                             stride = call.Ints("stride");
  const std::vector<int64_t>& xd = call.inputs[0].desc->dims;
  const std::vector<int64_t>& yd = call.outputs[0].desc->dims;
  if (size.size() != 2 || kernel.size() != 2 || dilation.size() != 2 || padding.size() != 2 || stride.size() != 2 ||
      xd.size() != 4 || yd.size() != 4 || yd[0] != xd[0] || yd[1] != xd[1] || yd[2] != size[0] || yd[3] != size[1] ||
      xd[2] != kernel[0] * kernel[1] || stride[0] < 1 || stride[1] < 1 ||
      !PlainFormat(call.inputs[0].desc->format) || !PlainFormat(call.outputs[0].desc->format)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "x " + ListText(xd) + ", y " + ListText(yd) + ", output_size " +
                                                      ListText(size) + ", kernel_size " + ListText(kernel) + ", dilation " +
                                                      ListText(dilation) + ", padding " + ListText(padding) + ", stride " +
                                                      ListText(stride) + ": not modelled (plain [N, C, kH * kW, L] x, 2 values each)");
  }
  const int64_t h = size[0], w = size[1];
  const int64_t blocks_h = (h + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) / stride[0] + 1;
  const int64_t blocks_w = (w + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1) / stride[1] + 1;
  if (blocks_h < 1 || blocks_w < 1 || blocks_h * blocks_w != xd[3]) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x's " + std::to_string(xd[3]) + " columns are not the " +
                                                       std::to_string(std::max<int64_t>(blocks_h, 0) * std::max<int64_t>(blocks_w, 0)) +
                                                       " blocks output_size " + ListText(size) + " takes");
  }
  Floats x, y;
  if (aclError s = FloatsOf(call, call.inputs[0], "x", &x)) return s;
  if (aclError s = FloatsOf(call, call.outputs[0], "y", &y)) return s;
  const int64_t planes = xd[0] * xd[1];
  return Launch(call, [=] {
    std::vector<float> sums(static_cast<size_t>(h * w));
    for (int64_t plane = 0; plane < planes; ++plane) {
      std::fill(sums.begin(), sums.end(), 0.0f);
      for (int64_t ki = 0; ki < kernel[0]; ++ki) {
        for (int64_t kj = 0; kj < kernel[1]; ++kj) {
          for (int64_t bh = 0; bh < blocks_h; ++bh) {
            const int64_t row = bh * stride[0] - padding[0] + ki * dilation[0];
            if (row < 0 || row >= h) continue;
            for (int64_t bw = 0; bw < blocks_w; ++bw) {
              const int64_t col = bw * stride[1] - padding[1] + kj * dilation[1];
              if (col < 0 || col >= w) continue;
              sums[static_cast<size_t>(row * w + col)] += x[((plane * kernel[0] * kernel[1]) + ki * kernel[1] + kj) * blocks_h * blocks_w + bh * blocks_w + bw];
            }
          }
        }
      }
      for (int64_t i = 0; i < h * w; ++i) y.Set(plane * h * w + i, sums[static_cast<size_t>(i)]);
    }
  });
}

// AvgPool3D (x) by aclnnAvgPool3d.
aclError AvgPool3D(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AvgPool3dWindow w;
  if (aclError s = ReadAvgPool3dWindow(call, &w)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<AvgPool3dApi>(call, "aclnnAvgPool3d", x, o.Ints(w.kernel), o.Ints(w.stride), o.Ints(w.padding), w.ceil_mode,
                             w.count_include_pad, w.divisor_override, y);
}

// AvgPool3DGrad (orig_input_shape, grads) to the input's gradient, by aclnnAvgPool3dBackward of the
// forward's window (the input itself, which the gradient does not read, a scratch of its shape).
// torch_npu sends the forward's pads as (front, back, top, bottom, left, right) but the gradient's in
// another order (traced on Ascend910: F.avg_pool3d's padding (d, h, w) arrives as (h, h, w, w, d, d)),
// and no document on hand says which order the gradient's kernel reads: pads that differ by axis are
// refused, since read either way they gave a gradient off by 0.1 with no error where the permuted
// window pools to the same shape (6^3 input, kernel 3, stride 3, padding (1, 0, 0)).
aclError AvgPool3DGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> shape;
  if (aclError s = call.ConstInts(0, "orig_input_shape", &shape)) return s;
  if (aclError s = SameShape(call, "orig_input_shape", shape)) return s;
  AvgPool3dWindow w;
  if (aclError s = ReadAvgPool3dWindow(call, &w)) return s;
  if (w.padding[0] != w.padding[1] || w.padding[1] != w.padding[2]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "pads " + ListText(call.Ints("pads")) +
                                                      " differ by axis: the order the gradient's kernel reads them in is "
                                                      "not documented (torch_npu sends the forward's as front, back, top, "
                                                      "bottom, left, right and the gradient's in another); equal pads are "
                                                      "modelled");
  }
  AclnnObjects o(call);
  aclTensor* grads = o.Tensor(call.inputs[1], "grads");
  aclTensor* x = o.Scratch(call.outputs[0].desc->dtype, shape);
  aclTensor* output = o.Tensor(call.outputs[0], "output");
  if (o.status()) return o.status();
  return Aclnn<AvgPool3dBackwardApi>(call, "aclnnAvgPool3dBackward", grads, x, o.Ints(w.kernel), o.Ints(w.stride),
                                     o.Ints(w.padding), w.ceil_mode, w.count_include_pad, w.divisor_override, output);
}

// MaxPool3D (x): F.max_pool3d's values on Ascend910, by aclnnMaxPool3dWithArgmax (its indices to a
// scratch tensor).
aclError MaxPool3D(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  MaxPool3dWindow w;
  if (aclError s = ReadMaxPool3dWindow(call, call.inputs[0].desc->dims, call.outputs[0].desc->dims, &w)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* indices = o.Scratch(ACL_INT32, call.outputs[0].desc->dims);
  if (o.status()) return o.status();
  return Aclnn<MaxPool3dApi>(call, "aclnnMaxPool3dWithArgmax", x, o.Ints(w.kernel), o.Ints(w.stride), o.Ints(w.padding),
                             o.Ints(w.dilation), w.ceil_mode, y, indices);
}

// MaxPool3DGrad (orig_x, orig_y, grads) to orig_x's gradient: the forward's argmax recomputed from
// orig_x (aclnnMaxPool3dWithArgmax, deterministic), then aclnnMaxPool3dWithArgmaxBackward.
aclError MaxPool3DGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const std::vector<int64_t>& pooled = call.inputs[2].desc->dims;
  MaxPool3dWindow w;
  if (aclError s = ReadMaxPool3dWindow(call, call.inputs[0].desc->dims, pooled, &w)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "orig_x");
  aclTensor* grads = o.Tensor(call.inputs[2], "grads");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* values = o.Scratch(call.inputs[0].desc->dtype, pooled);
  aclTensor* indices = o.Scratch(ACL_INT32, pooled);
  if (o.status()) return o.status();
  if (aclError s = Aclnn<MaxPool3dApi>(call, "aclnnMaxPool3dWithArgmax", x, o.Ints(w.kernel), o.Ints(w.stride),
                                       o.Ints(w.padding), o.Ints(w.dilation), w.ceil_mode, values, indices)) {
    return s;
  }
  return Aclnn<MaxPool3dBackwardApi>(call, "aclnnMaxPool3dWithArgmaxBackward", grads, x, indices, o.Ints(w.kernel),
                                     o.Ints(w.stride), o.Ints(w.padding), o.Ints(w.dilation), w.ceil_mode, y);
}

aclError MaxPoolWithArgmaxV1(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 2)) return s;
  const Operand &x_operand = call.inputs[0], &y_operand = call.outputs[0], &argmax = call.outputs[1];
  MaxPoolV1 p;
  if (aclError s = ReadMaxPoolV1(call, x_operand, y_operand, argmax, &p)) return s;
  if (!PlainFormat(x_operand.desc->format) || !PlainFormat(y_operand.desc->format)) {
    return call.Fail(ACL_ERROR_FORMAT_NOT_MATCH, "x or y in a private layout (plain NCHW modelled)");
  }
  Floats x, y;
  if (aclError s = FloatsOf(call, x_operand, "x", &x)) return s;
  if (aclError s = FloatsOf(call, y_operand, "y", &y)) return s;
  auto* bits = static_cast<uint16_t*>(argmax.buffer->data);
  return Launch(call, [p, x, y, bits] {
    std::fill(bits, bits + p.n * p.c * p.Window() * p.blocks, uint16_t{0});
    for (int64_t plane = 0; plane < p.n * p.c; ++plane) {
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          // aten's rule: the first maximum in window order, a NaN taken at once.
          float best = -std::numeric_limits<float>::infinity();
          int64_t chosen = -1, row = 0, col = 0;
          for (int64_t k = 0; k < p.Window(); ++k) {
            if (!p.At(oh, ow, k, &row, &col)) continue;
            const float v = x[(plane * p.h + row) * p.w + col];
            if (chosen < 0 || v > best || std::isnan(v)) {
              best = v;
              chosen = k;
              if (std::isnan(v)) break;
            }
          }
          const int64_t position = oh * p.out_w + ow;
          y.Set(plane * p.out_h * p.out_w + position, best);
          if (chosen >= 0) {
            bits[(plane * p.Window() + chosen) * p.blocks + position / 16] |= static_cast<uint16_t>(1u << (position % 16));
          }
        }
      }
    }
  });
}

// MaxPoolGradWithArgmaxV1 (x, grad, argmax) to y, x's gradient: each output position's gradient
// added at the input position its argmax bit names.
aclError MaxPoolGradWithArgmaxV1(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const Operand &x_operand = call.inputs[0], &grad_operand = call.inputs[1], &argmax = call.inputs[2];
  const Operand& y_operand = call.outputs[0];
  // For an unbatched CHW call (tests/torch_npu/nn_suite_sweep.py, max_pool2d_3d_input) torch_npu
  // hands the gradient the forward's mask with its words moved across channels (seen: channel 1's
  // words in channel 0's second block, channel 1's own zeroed): a transform its host code makes of
  // the mask, whose effect depends on the device kernel's own bit layout, which CANN does not
  // document and the simulator's does not share. Refused rather than read as laid out.
  if (x_operand.desc->dims.size() != 4 || grad_operand.desc->dims.size() != 4) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_operand.desc->dims) + ", grad " +
                                                       ListText(grad_operand.desc->dims) +
                                                       ": an unbatched (CHW) gradient is not modelled (NCHW is): torch_npu "
                                                       "rearranges the forward's argmax mask for it, by the device kernel's "
                                                       "undocumented bit layout");
  }
  MaxPoolV1 p;
  if (aclError s = ReadMaxPoolV1(call, x_operand, grad_operand, argmax, &p)) return s;
  if (Elements(y_operand.desc->dims) != Elements(x_operand.desc->dims) || !PlainFormat(grad_operand.desc->format) ||
      !PlainFormat(y_operand.desc->format)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "y " + ListText(y_operand.desc->dims) + " for x " +
                                                       ListText(x_operand.desc->dims) + " (x's shape, plain layouts modelled)");
  }
  Floats grad, y;
  if (aclError s = FloatsOf(call, grad_operand, "grad", &grad)) return s;
  if (aclError s = FloatsOf(call, y_operand, "y", &y)) return s;
  const auto* bits = static_cast<const uint16_t*>(argmax.buffer->data);
  return Launch(call, [p, grad, y, bits] {
    std::vector<float> sums(static_cast<size_t>(p.h * p.w));
    for (int64_t plane = 0; plane < p.n * p.c; ++plane) {
      std::fill(sums.begin(), sums.end(), 0.0f);
      for (int64_t k = 0; k < p.Window(); ++k) {
        const uint16_t* words = bits + (plane * p.Window() + k) * p.blocks;
        for (int64_t position = 0; position < p.out_h * p.out_w; ++position) {
          if (!(words[position / 16] & (1u << (position % 16)))) continue;
          int64_t row = 0, col = 0;
          if (p.At(position / p.out_w, position % p.out_w, k, &row, &col)) {
            sums[static_cast<size_t>(row * p.w + col)] += grad[plane * p.out_h * p.out_w + position];
          }
        }
      }
      for (int64_t i = 0; i < p.h * p.w; ++i) y.Set(plane * p.h * p.w + i, sums[static_cast<size_t>(i)]);
    }
  });
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnIm2col, Im2colApi);
ACLOP_SAME(aclnnAvgPool3d, AvgPool3dApi);
ACLOP_SAME(aclnnAvgPool3dBackward, AvgPool3dBackwardApi);
ACLOP_SAME(aclnnMaxPool3dWithArgmax, MaxPool3dApi);
ACLOP_SAME(aclnnMaxPool3dWithArgmaxBackward, MaxPool3dBackwardApi);
