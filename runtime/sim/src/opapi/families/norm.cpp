// The normalisation family: layer_norm, rms_norm, add_rms_norm, group_norm (and group_norm_silu,
// SiLU applied to its output, and group_norm_swish, x * sigmoid(swish_scale * x) applied to it when
// activate_swish; its data_format NCHW only, others refused by name) and batch_norm.
//
// Phase 2 views the input so that each set of elements that shares its statistics is one
// contiguous row of a [rows, length] buffer in the compute type: layer and rms norms' rows are
// the leading dimensions and their length the normalised trailing ones; group norm's rows are
// (n, group) and their length the group's channels times HxW; batch norm's rows are the channels
// (the input permuted to [C, N, ...]) and their length everything else. Each row's mean and
// variance (the mean of squares for rms) are accumulated in double; the affine weight and bias
// apply by column (layer, rms), by channel within the row (group) or by row (batch). FLOAT16 and
// BFLOAT16 compute in float, DOUBLE in double. Rows are spread over the threads. The output goes
// back through the same view; mean/rstd outputs are written in their own dtype.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "aclnn_bindgen/norm_shape.h"
#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = NormFamily;

enum Slot { kInput, kInput2, kWeight, kBias, kRunningMean, kRunningVar, kOut, kMean, kRstd, kSumOut, kInput3, kOut2,
            kScale, kShift, kSlots };

bool Present(const TensorRef& t) { return t.dtype != ACL_DT_UNDEFINED; }

// The group norms' SiLU (swish with `scale`) of a float row in place, y / (1 + exp(-scale * y)),
// built for each code path (ACLSIM_KERNEL) so that the loop calls the path's vector exp
// (aclnn_sim/vector_math.h). scale 1 is the plain SiLU: -1 * y is -y exactly.
ACLSIM_KERNEL(void, SwishRow, (float* y, int64_t n, float scale), (y, n, scale)) {
  for (int64_t i = 0; i < n; ++i) y[i] = y[i] / (1.0f + std::exp(-scale * y[i]));
}

template <typename T>
void Swish(T* y, int64_t n, T scale) {
  if constexpr (std::is_same<T, float>::value) {
    SwishRow(y, n, scale);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] / (T(1) + std::exp(-scale * y[i]));
  }
}

// A row's statistics in double, in eight lanes folded in a fixed order (the same on every path:
// the family has one build): one running double waited on each addition's latency, ~4 cycles an
// element, which was most of group_norm_silu's time. Sum of x, and sum of (x - center)^2 (center
// 0 gives rms's sum of squares exactly).
constexpr int kStatLanes = 8;

double FoldLanes(const double* lanes) {
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

template <typename T>
double SumOf(const T* x, int64_t n) {
  double lanes[kStatLanes] = {};
  int64_t i = 0;
  for (; i + kStatLanes <= n; i += kStatLanes) {
    for (int j = 0; j < kStatLanes; ++j) lanes[j] += static_cast<double>(x[i + j]);
  }
  double sum = FoldLanes(lanes);
  for (; i < n; ++i) sum += static_cast<double>(x[i]);
  return sum;
}

template <typename T>
double SquaresAbout(const T* x, int64_t n, double center) {
  double lanes[kStatLanes] = {};
  int64_t i = 0;
  for (; i + kStatLanes <= n; i += kStatLanes) {
    for (int j = 0; j < kStatLanes; ++j) {
      const double d = static_cast<double>(x[i + j]) - center;
      lanes[j] += d * d;
    }
  }
  double sum = FoldLanes(lanes);
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - center;
    sum += d * d;
  }
  return sum;
}

class NormWork final : public FamilyWork {
 public:
  NormWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int64_t rows = 0, length = 0;
  int64_t groups = 1, channels = 1, hxw = 1;  // group_norm
  double eps = 1e-5, momentum = 0.1;
  double alpha = 1;           // deep_norm: x * alpha + gx; add_rms_norm: x1 * alpha + x2
  bool training = false;
  bool write_sum = true;      // add_layer_norm: additionalOutput
  bool swish = false;         // group_norm_swish: activateSwish
  double swish_scale = 1;
  // The order that brings the input (and out) to the rows layout (batch norm's [C, N, ...]).
  int64_t order[16] = {};
  bool permuted = false;

 private:
  TensorRef Rows(int slot) const { return permuted ? tensor(slot).Permuted(order) : tensor(slot); }

  template <typename T>
  const T* Load(int slot, int scratch) {
    return Present(tensor(slot)) ? static_cast<const T*>(ContiguousAs(tensor(slot), type, scratch)) : nullptr;
  }

  // The values `t` holds once written in its own dtype (a FLOAT16 sum rounded as the device rounds it).
  template <typename T>
  void RoundTo(aclDataType dtype, T* values, int64_t n) {
    if (dtype == StorageOf(type)) return;
    const size_t size = DTypeSize(dtype);
    char* temp = static_cast<char*>(Scratch(7, static_cast<size_t>(n) * size));
    Storer(type, dtype)(values, temp, static_cast<int64_t>(size), n);
    Loader(type, dtype)(temp, static_cast<int64_t>(size), n, values);
  }

  template <typename T>
  void Run() {
    const int64_t numel = rows * length;
    // x: the input rows; add_rms_norm and add_layer_norm: x1 + x2 (+ bias, by column or by element),
    // rounded to x1's dtype as xOut holds it; deep_norm: x * alpha + gx, in the compute type.
    const T* x;
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(numel, 1)) * sizeof(T)));
    const bool deep = op_ == F::Op::kDeepNorm;
    const bool cast = op_ == F::Op::kAddRmsNormCast;  // its sum stays in float (the page's float(x1) + float(x2))
    if (op_ == F::Op::kAddRmsNorm || op_ == F::Op::kAddLayerNorm || deep || cast) {
      T* sum = static_cast<T*>(Scratch(6, static_cast<size_t>(std::max<int64_t>(numel, 1)) * sizeof(T)));
      GatherAs(Rows(kInput), type, sum);
      GatherAs(Rows(kInput2), type, y);
      const T scale = static_cast<T>(alpha);
      // alpha: deep_norm's, and add_rms_norm's scale of x1 (aclnnFusedAddRmsNorm: x1 * scale + x2).
      for (int64_t i = 0; i < numel; ++i) sum[i] = (deep || alpha != 1 ? sum[i] * scale : sum[i]) + y[i];
      if (const T* added = Load<T>(kInput3, 0)) {
        const bool by_column = tensor(kInput3).numel() != numel;  // gamma's shape, else x1's
        for (int64_t i = 0; i < numel; ++i) sum[i] += added[by_column ? i % length : i];
      }
      if (!deep && !cast) RoundTo(tensor(kInput).dtype, sum, numel);
      if (Present(tensor(kSumOut)) && write_sum) ScatterFrom(sum, type, tensor(kSumOut));
      x = sum;
    } else {
      x = static_cast<const T*>(ContiguousAs(Rows(kInput), type, 0));
      // y straight into out where out is dense in the compute type (no copy pass over the
      // result): each row reads its elements before writing them at the same places, so an out
      // that is x itself is safe; one that overlaps x otherwise keeps the scratch.
      const TensorRef out = Rows(kOut);
      if (out.dtype == StorageOf(type) && out.Contiguous() && out.numel() == numel) {
        const char *out_begin = out.first, *out_end = out.first + numel * sizeof(T);
        const char *x_begin = reinterpret_cast<const char*>(x), *x_end = x_begin + numel * sizeof(T);
        if (out_begin == x_begin || out_end <= x_begin || x_end <= out_begin) y = reinterpret_cast<T*>(out.first);
      }
    }
    const T* weight = Load<T>(kWeight, 2);
    const T* bias = Load<T>(kBias, 3);
    T* means = static_cast<T*>(Scratch(4, static_cast<size_t>(std::max<int64_t>(rows, 1)) * sizeof(T)));
    T* rstds = static_cast<T*>(Scratch(5, static_cast<size_t>(std::max<int64_t>(rows, 1)) * sizeof(T)));
    const bool batch = op_ == F::Op::kBatchNorm;
    const bool rms = op_ == F::Op::kRmsNorm || op_ == F::Op::kAddRmsNorm || op_ == F::Op::kGemmaRmsNorm || cast;
    const bool running = batch && !training;
    const T* running_mean = running ? Load<T>(kRunningMean, 6) : nullptr;
    const T* running_var = running ? Load<T>(kRunningVar, 7) : nullptr;
    std::vector<double> variances(batch && training ? static_cast<size_t>(rows) : 0);

    auto row = [&](int64_t r) {
      const T* xr = x + r * length;
      T* yr = y + r * length;
      double mean = 0, var = 0;
      if (running) {
        mean = static_cast<double>(running_mean[r]);
        var = static_cast<double>(running_var[r]);
      } else if (rms) {
        var = SquaresAbout(xr, length, 0.0);
        var = length ? var / static_cast<double>(length) : 0;
      } else {
        mean = SumOf(xr, length);
        mean = length ? mean / static_cast<double>(length) : 0;
        var = SquaresAbout(xr, length, mean);
        if (batch && training) variances[static_cast<size_t>(r)] = var;
        var = length ? var / static_cast<double>(length) : 0;
      }
      const double rstd = 1.0 / std::sqrt(var + eps);
      means[r] = static_cast<T>(mean);
      rstds[r] = static_cast<T>(rstd);
      const T m = static_cast<T>(mean), s = static_cast<T>(rstd);
      switch (op_) {
        case F::Op::kRmsNorm: case F::Op::kAddRmsNorm: case F::Op::kAddRmsNormCast:
          for (int64_t i = 0; i < length; ++i) yr[i] = xr[i] * s * (weight ? weight[i] : T(1));
          break;
        case F::Op::kGemmaRmsNorm:  // Gemma's weights are offsets from 1
          for (int64_t i = 0; i < length; ++i) yr[i] = xr[i] * s * (T(1) + (weight ? weight[i] : T(0)));
          break;
        case F::Op::kLayerNorm: case F::Op::kAddLayerNorm: case F::Op::kDeepNorm: case F::Op::kAdaLayerNorm:
          for (int64_t i = 0; i < length; ++i) {
            yr[i] = (xr[i] - m) * s * (weight ? weight[i] : T(1)) + (bias ? bias[i] : T(0));
          }
          break;
        case F::Op::kGroupNorm: case F::Op::kGroupNormSilu: case F::Op::kGroupNormSwish: {
          // A row is its group's channels one after the other, hxw elements each: a loop per channel
          // (not an index division per element, which cost more than the arithmetic).
          const int64_t per_group = channels / groups, first = (r % groups) * per_group;
          for (int64_t k = 0; k < per_group; ++k) {
            const int64_t c = first + k;
            const T w = weight ? weight[c] : T(1), b = bias ? bias[c] : T(0);
            T* yc = yr + k * hxw;
            const T* xc = xr + k * hxw;
            for (int64_t i = 0; i < hxw; ++i) yc[i] = (xc[i] - m) * s * w + b;
          }
          if (op_ == F::Op::kGroupNormSilu) Swish(yr, length, T(1));
          if (op_ == F::Op::kGroupNormSwish && swish) Swish(yr, length, static_cast<T>(swish_scale));
          break;
        }
        case F::Op::kBatchNorm: {
          const T w = weight ? weight[r] : T(1), b = bias ? bias[r] : T(0);
          for (int64_t i = 0; i < length; ++i) yr[i] = (xr[i] - m) * s * w + b;
          break;
        }
      }
    };
    const int64_t tasks = numel < (1 << 15) ? 1 : std::min<int64_t>(rows, ParallelThreads() * 4);
    auto run = [&](int64_t task) {
      for (int64_t r = rows * task / tasks; r < rows * (task + 1) / tasks; ++r) row(r);
    };
    if (tasks <= 1) run(0); else ParallelFor(tasks, run);

    if (op_ == F::Op::kAdaLayerNorm) {  // * (1 + scale) + shift, their row b for x's rows of batch b
      const T* scale = Load<T>(kScale, 6);  // scratch 6 and 7: the add and batch ops' alone
      const T* shift = Load<T>(kShift, 7);
      const int64_t per_batch = rows / std::max<int64_t>(tensor(kScale).numel() / std::max<int64_t>(length, 1), 1);
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t b = r / per_batch * length;
        for (int64_t i = 0; i < length; ++i) y[r * length + i] = y[r * length + i] * (T(1) + scale[b + i]) + shift[b + i];
      }
    }
    if (y != reinterpret_cast<T*>(tensor(kOut).first)) ScatterFrom(y, type, Rows(kOut));
    if (Present(tensor(kOut2))) ScatterFrom(y, type, Rows(kOut2));  // add_rms_norm_cast's y in x1's dtype
    if (Present(tensor(kMean))) ScatterFrom(means, type, tensor(kMean));
    if (Present(tensor(kRstd))) ScatterFrom(rstds, type, tensor(kRstd));
    if (batch && training) {
      // running = (1 - momentum) * running + momentum * batch statistic (the unbiased variance).
      for (int slot : {kRunningMean, kRunningVar}) {
        if (!Present(tensor(slot))) continue;
        T* values = static_cast<T*>(Scratch(7, static_cast<size_t>(std::max<int64_t>(rows, 1)) * sizeof(T)));
        GatherAs(tensor(slot), type, values);
        for (int64_t r = 0; r < rows; ++r) {
          const double stat = slot == kRunningMean ? static_cast<double>(means[r])
                              : length > 1 ? variances[static_cast<size_t>(r)] / static_cast<double>(length - 1)
                                           : std::numeric_limits<double>::quiet_NaN();
          values[r] = static_cast<T>((1 - momentum) * static_cast<double>(values[r]) + momentum * stat);
        }
        ScatterFrom(values, type, tensor(slot));
      }
    }
  }

  aclnnStatus Compute() override {
    if (rows == 0) return ACLNN_SUCCESS;
    if (type == ComputeType::kFloat64) {
      Run<double>();
    } else {
      Run<float>();
    }
    return ACLNN_SUCCESS;
  }

  int op_;
};

// A per-channel tensor (weight, bias, running statistics): `count` elements.
aclnnStatus CheckCount(const Call& call, const FamilySpec& family, int role, const TensorDesc* t, int64_t count,
                       const char* what) {
  if (t->numel() == count && t->view.size() <= 1) return ACLNN_SUCCESS;
  return RejectInvalid(call, family, role,
                       "shape " + DimsText(t->view) + " does not hold one value per " + what + " (" +
                           std::to_string(count) + ")");
}

}  // namespace

aclnnStatus NormalizedRows(const Call& call, const FamilySpec& family, int input_role, int shape_role,
                           const TensorDesc& input, Dims* normalized, int64_t* rows, int64_t* length) {
  if (const TensorDesc* weight = RoleTensor(call, family, shape_role)) {
    *normalized = weight->view;
  } else if (!RoleInts(call, family, shape_role, normalized) || normalized->empty()) {
    return RejectInvalid(call, family, shape_role, "must name at least one dimension");
  }
  const int64_t rank = static_cast<int64_t>(input.view.size()), count = static_cast<int64_t>(normalized->size());
  bool fits = count <= rank;
  for (int64_t d = 0; fits && d < count; ++d) fits = input.view[rank - count + d] == (*normalized)[d];
  if (!fits) {
    return RejectInvalid(call, family, shape_role,
                         DimsText(*normalized) + " is not the trailing shape of " + RoleName(call, family, input_role) +
                             " " + DimsText(input.view));
  }
  *rows = *length = 1;
  for (int64_t d = 0; d < rank; ++d) (d < rank - count ? *rows : *length) *= input.view[d];
  return ACLNN_SUCCESS;
}

aclnnStatus GroupRows(const Call& call, const FamilySpec& family, int input_role, int group_role,
                      const TensorDesc& input, GroupedRows* out) {
  const int64_t rank = static_cast<int64_t>(input.view.size());
  if (rank < 2) {
    return RejectInvalid(call, family, input_role,
                         "must have at least 2 dimensions ([N, C, ...]), got shape " + DimsText(input.view));
  }
  const int64_t groups = RoleInt(call, family, group_role, 1), channels = input.view[1];
  if (groups <= 0 || channels % groups != 0) {
    return RejectInvalid(call, family, group_role,
                         "value " + std::to_string(groups) + " does not divide the " + std::to_string(channels) +
                             " channels");
  }
  out->groups = groups;
  out->channels = channels;
  out->hxw = 1;
  for (int64_t d = 2; d < rank; ++d) out->hxw *= input.view[d];
  out->rows = input.view[0] * groups;
  out->length = channels / groups * out->hxw;
  return ACLNN_SUCCESS;
}

int64_t ChannelAxis(const TensorDesc& input, int64_t* order) {
  const int64_t rank = static_cast<int64_t>(input.view.size());
  const bool last = input.format == ACL_FORMAT_NHWC || input.format == ACL_FORMAT_NDHWC;
  const int64_t axis = last ? rank - 1 : 1;
  order[0] = axis;
  for (int64_t d = 0, k = 1; d < rank; ++d) {
    if (d != axis) order[k++] = d;
  }
  return axis;
}

aclnnStatus PlanNorm(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  SourceAndOutput found;
  if (!ReadSourceAndOutput(call, family, F::Role::kInput, F::Role::kOut, work, &found)) return ACLNN_SUCCESS;
  const auto [input, out, rank] = found;
  ComputeType type;
  if (!FamilyComputeType(input->dtype, false, &type)) {
    return DeclineDtype(call, work, input->dtype);
  }
  const TensorDesc* input2 = RoleTensor(call, family, F::Role::kInput2);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  const TensorDesc* bias = RoleTensor(call, family, F::Role::kBias);
  const TensorDesc* mean = RoleTensor(call, family, F::Role::kMean);
  const TensorDesc* rstd = RoleTensor(call, family, F::Role::kRstd);
  const TensorDesc* sum_out = RoleTensor(call, family, F::Role::kSumOut);
  const TensorDesc* input3 = RoleTensor(call, family, F::Role::kInput3);
  const TensorDesc* out2 = RoleTensor(call, family, F::Role::kOut2);
  const TensorDesc* running_mean = RoleTensor(call, family, F::Role::kRunningMean);
  const TensorDesc* running_var = RoleTensor(call, family, F::Role::kRunningVar);

  NormWork* made = new NormWork(call.spec.name, op);
  std::unique_ptr<NormWork> owned(made);
  made->type = type;
  made->eps = RoleNumber(call, family, F::Role::kEps, F::Option::kEps,
                         op == F::Op::kRmsNorm || op == F::Op::kAddRmsNorm || op == F::Op::kGemmaRmsNorm ||
                                 op == F::Op::kAddRmsNormCast ? 1e-6 : 1e-5);
  made->alpha = RoleNumber(call, family, F::Role::kAlpha, -1, 1.0);
  made->write_sum = RoleBool(call, family, F::Role::kAdditionalOutput, true);
  if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, out, input->view, "the input's shape")) return s;

  Dims stats;  // the shape of mean and rstd
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const TensorDesc* shift = RoleTensor(call, family, F::Role::kShift);
  switch (op) {
    case F::Op::kAdaLayerNorm: {
      // x [B..., S, H] normalised over H; scale and shift [B..., H] or [B..., 1, H].
      if (!scale || !shift) return Decline(call, work, "without scale and shift");
      if (rank < 2) return RejectInvalid(call, family, F::Role::kInput, "must have at least 2 dimensions");
      const int64_t h = input->view[rank - 1];
      made->length = h;
      made->rows = h ? input->numel() / h : 0;
      stats.assign(input->view.begin(), input->view.end() - 1);
      stats.push_back(1);
      Dims row(input->view.begin(), input->view.end() - 2);
      row.push_back(h);
      Dims one_row(input->view.begin(), input->view.end() - 2);
      one_row.push_back(1);
      one_row.push_back(h);
      for (int role : {static_cast<int>(F::Role::kScale), static_cast<int>(F::Role::kShift)}) {
        const TensorDesc* t = role == F::Role::kScale ? scale : shift;
        if (t->view != row && t->view != one_row) {
          return RejectInvalid(call, family, role,
                               "shape " + DimsText(t->view) + " is neither " + DimsText(row) + " nor " + DimsText(one_row) +
                                   " (x's batch dimensions and H)");
        }
      }
      for (int role : {static_cast<int>(F::Role::kWeight), static_cast<int>(F::Role::kBias)}) {
        const TensorDesc* t = role == F::Role::kWeight ? weight : bias;
        if (t) {
          if (aclnnStatus st = CheckShape(call, family, role, t, Dims{h}, "[H]")) return st;
        }
      }
      break;
    }
    case F::Op::kLayerNorm: case F::Op::kRmsNorm: case F::Op::kAddRmsNorm: case F::Op::kGemmaRmsNorm:
    case F::Op::kAddLayerNorm: case F::Op::kDeepNorm: case F::Op::kAddRmsNormCast: {
      // Layer norm's trailing dimensions are normalizedShape's; the others', gamma's shape.
      if (op != F::Op::kLayerNorm && !weight) return Decline(call, work, "without gamma");
      Dims normalized;
      if (aclnnStatus s = NormalizedRows(call, family, F::Role::kInput,
                                         op == F::Op::kLayerNorm ? F::Role::kNormalizedShape : F::Role::kWeight,
                                         *input, &normalized, &made->rows, &made->length)) {
        return s;
      }
      // The bindings' trailing_ones rule (aclnn_bindgen/norm_shape.h).
      stats = aclnn_bindgen::TrailingOnes(input->view, normalized.size());
      if (op == F::Op::kLayerNorm || op == F::Op::kAddLayerNorm || op == F::Op::kDeepNorm) {
        if (weight && op == F::Op::kLayerNorm) {
          if (aclnnStatus s = CheckShape(call, family, F::Role::kWeight, weight, normalized, "normalizedShape")) return s;
        }
        if (bias) {
          if (aclnnStatus s = CheckShape(call, family, F::Role::kBias, bias, normalized, "normalizedShape")) return s;
        }
      }
      if (op == F::Op::kAddRmsNorm || op == F::Op::kAddLayerNorm || op == F::Op::kDeepNorm ||
          op == F::Op::kAddRmsNormCast) {
        if (!input2) return Decline(call, work, "without its second input");
        if (aclnnStatus s = CheckShape(call, family, F::Role::kInput2, input2, input->view, "the first input's shape")) {
          return s;
        }
        if (sum_out) {
          if (aclnnStatus s = CheckShape(call, family, F::Role::kSumOut, sum_out, input->view, "the input's shape")) {
            return s;
          }
        }
        if (out2) {
          if (aclnnStatus s = CheckShape(call, family, F::Role::kOut2, out2, input->view, "the input's shape")) return s;
        }
        // add_layer_norm's bias: one value per normalised element (gamma's shape) or per element of x1.
        if (input3 && input3->numel() != made->length && input3->numel() != input->numel()) {
          return RejectInvalid(call, family, F::Role::kInput3,
                               "shape " + DimsText(input3->view) + " is neither gamma's nor the input's");
        }
      }
      break;
    }
    case F::Op::kGroupNormSwish: {
      const int format = family.roles[F::Role::kDataFormat];
      const std::string data_format = format >= 0 ? CallString(call, format) : "NCHW";
      if (data_format != "NCHW") {
        return RejectInvalid(call, family, F::Role::kDataFormat,
                             "\"" + data_format + "\" is not NCHW, the one data format the page supports");
      }
      made->swish = RoleBool(call, family, F::Role::kActivateSwish, true);
      made->swish_scale = RoleNumber(call, family, F::Role::kSwishScale, -1, 1.0);
      [[fallthrough]];
    }
    case F::Op::kGroupNorm: case F::Op::kGroupNormSilu: {
      GroupedRows split;
      if (aclnnStatus s = GroupRows(call, family, F::Role::kInput, F::Role::kGroup, *input, &split)) return s;
      const int64_t groups = split.groups, channels = split.channels;
      made->groups = groups;
      made->channels = channels;
      made->hxw = split.hxw;
      made->rows = split.rows;
      made->length = split.length;
      stats = Dims{input->view[0], groups};
      for (int role : {static_cast<int>(F::Role::kWeight), static_cast<int>(F::Role::kBias)}) {
        const TensorDesc* t = RoleTensor(call, family, role);
        if (t) {
          if (aclnnStatus s = CheckCount(call, family, role, t, channels, "channel")) return s;
        }
      }
      break;
    }
    case F::Op::kBatchNorm: {
      if (rank < 2) {
        return RejectInvalid(call, family, F::Role::kInput,
                             "must have at least 2 dimensions, got shape " + DimsText(input->view));
      }
      const int64_t channels = input->view[ChannelAxis(*input, made->order)];
      made->training = RoleBool(call, family, F::Role::kTraining, false);
      made->momentum = RoleNumber(call, family, F::Role::kMomentum, -1, 0.1);
      made->permuted = true;
      made->rows = channels;
      made->length = channels ? input->numel() / channels : 0;
      stats = Dims{channels};
      for (int role : {static_cast<int>(F::Role::kWeight), static_cast<int>(F::Role::kBias),
                       static_cast<int>(F::Role::kRunningMean), static_cast<int>(F::Role::kRunningVar)}) {
        const TensorDesc* t = RoleTensor(call, family, role);
        if (t) {
          if (aclnnStatus s = CheckCount(call, family, role, t, channels, "channel")) return s;
        }
      }
      if (!made->training && (!running_mean || !running_var)) {
        return RejectParam(call, family, running_mean ? F::Role::kRunningVar : F::Role::kRunningMean,
                           ACLNN_ERR_PARAM_INVALID, "is required for inference (training = false)");
      }
      for (int role : {static_cast<int>(F::Role::kMean), static_cast<int>(F::Role::kRstd)}) {
        const TensorDesc* t = RoleTensor(call, family, role);
        if (t) {
          if (aclnnStatus s = CheckCount(call, family, role, t, channels, "channel")) return s;
        }
      }
      break;
    }
    default:
      return Decline(call, work, "for this op");
  }
  if (op != F::Op::kBatchNorm) {
    // An empty input's statistics are empty whatever their shape: op-plugin's layer norm gives them
    // [M] = [0] (LayerNormKernelNpuOpApi.cpp), nothing to write either way.
    const bool empty_stats = std::find(stats.begin(), stats.end(), 0) != stats.end();
    for (int role : {static_cast<int>(F::Role::kMean), static_cast<int>(F::Role::kRstd)}) {
      const TensorDesc* t = RoleTensor(call, family, role);
      if (t && !(empty_stats && t->numel() == 0)) {
        if (aclnnStatus s = CheckShape(call, family, role, t, stats, "the statistics' shape")) return s;
      }
    }
  }

  struct Binding {
    int slot;
    int role;
    const TensorDesc* t;
  };
  const Binding bindings[] = {
      {kInput, F::Role::kInput, input},          {kInput2, F::Role::kInput2, input2},
      {kWeight, F::Role::kWeight, weight},       {kBias, F::Role::kBias, bias},
      {kRunningMean, F::Role::kRunningMean, running_mean}, {kRunningVar, F::Role::kRunningVar, running_var},
      {kOut, F::Role::kOut, out},                {kMean, F::Role::kMean, mean},
      {kRstd, F::Role::kRstd, rstd},             {kSumOut, F::Role::kSumOut, sum_out},
      {kInput3, F::Role::kInput3, input3},      {kOut2, F::Role::kOut2, out2},
      {kScale, F::Role::kScale, scale},          {kShift, F::Role::kShift, shift},
  };
  for (const Binding& b : bindings) {
    if (b.t) made->tensor(b.slot).Set(RoleName(call, family, b.role), *b.t);
  }
  // Statistics tensors of one element per row whatever their rank (batch norm's [C]).
  for (int slot : {kMean, kRstd}) {
    TensorRef& t = made->tensor(slot);
    if (Present(t) && op == F::Op::kBatchNorm && t.rank() != 1) {
      t.shape = Dims{made->rows};
      t.strides = Dims{1};
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
