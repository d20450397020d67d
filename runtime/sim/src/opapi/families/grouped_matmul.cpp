// The grouped_matmul family: aclnnGroupedMatmulV4 and V5 (torch_npu.npu_grouped_matmul, a MoE
// layer's experts), their non-quantised form by the op's README:
//   y_i = x_i @ weight_i + bias_i,  i = 0 .. g-1
// with weight a list of g [k_i, n_i] matrices or one [g, K, N] tensor (bias then one [g, N] or g
// [n_i] vectors), and the groups taken as group_type says:
//   -1  no grouping: one x_i (2 to 6 dimensions, [..., k_i]) per weight, y_i [..., n_i]
//    0  the M axis: x one [M, K] whose rows group_list splits (type 0: cumulative ends, 1: counts),
//       or one [m_i, K] x_i per weight (group_list, if given, must agree with their rows)
//    2  the K axis: x one [M, K] whose columns group_list splits against one weight [K, N]
//       (y [g, M, N]), or consecutive columns against each weight [k_i, N] (y_i [M, N]); no bias
// split_item 0/1 gives a tensor per group, 2/3 one tensor: the groups' rows one after the other
// (rows no group reaches are zeros; the README lets group_list end before x's last row).
// group_list is device data: its values are read and checked in phase 2 (a negative group, a
// decreasing cumulative end, groups past x's extent, or a split output of another extent fail it).
// aclnnGroupedMatmul (npu_grouped_matmul's List overload; a derived page) has neither groupType nor
// groupListType and takes group_list as host integers: cumulative ends along M (group_type 0, type 0)
// when given, else one x per group (group_type -1 for one x, 0 for several); its values are checked
// where the device's are.
// FLOAT, FLOAT16 and BFLOAT16 in float (OpenBLAS's sgemm per group), rounded once to out's dtype.
// The quantised form (INT8 x and weight, group_type 0 only, as the README's constraints say), by its
// formulas and its A2/A3 dtype table:
//   y_i = (x_i @ weight_i + bias_i) * scale_i [* per_token_scale_i]
// the product exact in INT32 (held in double: |acc| < 2^31 for k < 65536), the INT32 bias added
// before the scales, the float result rounded once to out's dtype: BFLOAT16 for a BFLOAT16 scale,
// FLOAT16 for a FLOAT one (quant_scale.h reads them); without a scale the INT32 sum itself (an INT32
// out). scale one [g, N] beside a 3-d weight, or one [n_i] per weight; per_token_scale one value per
// row of the one x.
// The antiquantised form (A16W8: FLOAT16/BFLOAT16 x, INT8 weight, group_type -1 and 0 as the README's
// constraints say), by its formula and its A2/A3 dtype table:
//   y_i = x_i @ ((weight_i + antiquant_offset_i) * antiquant_scale_i) + bias_i
// per channel (the only mode the README gives an INT8 weight): antiquant_scale and antiquant_offset,
// x's dtype, one [g, N] beside a 3-d weight or one [n_i] per weight; an absent antiquant_offset (the
// API's Optional, torch_npu's None) is the symmetric case, offset 0. Each weight is dequantised in
// float32 and the product taken like the float form's, rounded once to out (x's dtype).
// An INT4 weight (A16W4) is antiquantised the same way, read as CANN packs INT4 (common/int4.h), or
// from the INT32 words torch_npu packs eight INT4 in (npu_convert_weight_to_int4pack: [k, n / 8] for
// n columns, [g, K, N / 8] stacked).
// Declined by name: the requantisation to INT8 (a UINT64/INT64 scale: the README does not state how
// it rounds or saturates, nor does the quant_matmul family's page, which declines it too), INT4
// weights beside INT8 or INT4 x (A8W4, A4W4), the offset, the activation forms
// (activation_*, the two extra outputs) and group_list_type 2 (whose first column the README does not
// define); what the README rules out is refused in phase 1.
// grouped_matmul_add, aclnnGroupedMatmulAdd (torch_npu.npu_grouped_matmul_add, a derived page): yRef_i +=
// x_i^T @ weight_i in float (OpenBLAS's sgemm into yRef's FLOAT32 values), x [K, M] and weight [K, N] split
// along K by groupList's cumulative ends (device data: a decreasing end or one past K fails phase 2), yRef
// [g, M, N]; the modes the API supports (transposeX true, transposeWeight false, groupType 2) only.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cblas.h>

#include "common/dtypes.h"
#include "common/int4.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_scale.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using F = GroupedMatmulFamily;

// One product of the work: x's rows [row, row + m) and columns [col, col + k) times the k rows
// of weight slot `w` from element `w_at` ([k, n], row-major), plus bias slot `b`'s n values from
// `b_at` (b < 0: none), into out slot `o` from element `o_at`; quantised, scaled by scale slot `s`'s
// n values from `s_at` (s < 0: none, the INT32 sum itself); antiquantised, the weight dequantised by
// antiquant_scale slot `as`'s and antiquant_offset slot `ao`'s n values from `a_at` (ao < 0: offset 0).
struct Group {
  int x = 0, w = 0, b = -1, o = 0, s = -1, as = -1, ao = -1;
  int64_t row = 0, col = 0, m = 0, k = 0, n = 0;
  int64_t w_at = 0, b_at = 0, o_at = 0, s_at = 0, a_at = 0;
};

class GroupedMatmulWork final : public FamilyWork {
 public:
  GroupedMatmulWork(const char* api, int slots) : FamilyWork(api, slots) {}

  std::vector<Group> groups;
  std::vector<int> outs;     // the out slots, in order
  int group_list = -1;       // its slot; -1: the groups are the shapes' (or host_list's)
  std::vector<int64_t> host_list;  // group_list given as host integers (aclnnGroupedMatmul)
  std::string list_name;
  int64_t list_type = 0;     // 0 cumulative ends, 1 counts
  bool by_columns = false;   // group_type 2: group_list splits x's columns (K) rather than its rows
  int64_t extent = 0;        // what group_list may reach: x's rows, or its columns
  bool stacked = false;      // K split into one [g, M, N] out: group i at i * M * N
  bool one_out = false;      // split_item 2/3: every group writes into out slot outs[0]
  bool sized_outs = false;   // split_item 0/1 by group_list: out i has exactly group i's rows
  bool shared_x = false;     // one x whose rows or columns group_list splits (else one x per group)
  bool quant = false;        // INT8 x and weight: the quantised form
  std::vector<TensorDesc> int4_weights;  // by slot: an INT4 weight's elements (its slot holds their bytes)
  int per_token = -1;        // per_token_scale's slot (quant): one value per row of the one x

  // aclnnGroupedMatmul's group_list is host integers: the groups' sizes are known in phase 1, so a
  // list that does not fit x (an end before the previous one, a group past x's rows, an element
  // other than the rows of x's member) is refused then as the argument it is (ACLNN_ERR_PARAM_INVALID),
  // not left to fail phase 2. A group_list on the device stays Compute's to judge.
  aclnnStatus CheckHostList() {
    if (host_list.empty()) return ACLNN_SUCCESS;
    return shared_x ? ResolveSizes(ACLNN_ERR_PARAM_INVALID) : CheckListAgrees(ACLNN_ERR_PARAM_INVALID);
  }

 private:
  // The groups' sizes along x's grouped axis from group_list, or the failure naming it.
  bool Listed() const { return group_list >= 0 || !host_list.empty(); }
  bool IsInt4Weight(int slot) const {
    return static_cast<size_t>(slot) < int4_weights.size() && int4_weights[static_cast<size_t>(slot)].dtype == ACL_INT4;
  }
  int64_t ListCount() const { return group_list >= 0 ? tensor(group_list).numel() : static_cast<int64_t>(host_list.size()); }
  const int64_t* ListValues() {
    if (group_list < 0) return host_list.data();
    return tensor(group_list).numel() ? IndexValues(tensor(group_list), 0) : nullptr;
  }

  // `status`: phase 2's ACLNN_ERR_INNER for a group_list on the device; phase 1 judges a host one.
  aclnnStatus ResolveSizes(aclnnStatus status = ACLNN_ERR_INNER) {
    const int64_t count = ListCount();
    const int64_t* values = ListValues();
    int64_t at = 0;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t size = list_type == 1 ? values[i] : values[i] - (i ? values[i - 1] : 0);
      if (size < 0) {
        return Fail(status, std::string(api_) + ": " + list_name + ": element " + std::to_string(i) + " (" +
                                         std::to_string(values[i]) + ") gives group " + std::to_string(i) +
                                         (list_type == 1 ? " a negative count" : " an end before the previous one"));
      }
      if (size > extent - at) {  // checked before the sum, which values near 2^63 would overflow
        return Fail(status, std::string(api_) + ": " + list_name + ": group " + std::to_string(i) +
                                         " reaches past x's " + std::to_string(extent) +
                                         (by_columns ? " columns" : " rows"));
      }
      Group& g = groups[static_cast<size_t>(i)];
      if (by_columns) {
        g.col = at;
        g.k = size;
        g.w_at = stacked ? at * g.n : 0;
        g.o_at = stacked ? i * g.m * g.n : 0;
      } else {
        g.row = at;
        g.m = size;
        g.o_at = one_out ? at * g.n : 0;
      }
      at += size;
    }
    if (sized_outs) {
      for (size_t i = 0; i < groups.size(); ++i) {
        const TensorRef& o = tensor(outs[i]);
        if (o.shape[0] != groups[i].m) {
          return Fail(status, std::string(api_) + ": " + o.name + ": member " + std::to_string(i) + " has " +
                                           std::to_string(o.shape[0]) + " rows, group_list gives its group " +
                                           std::to_string(groups[i].m));
        }
      }
    }
    return ACLNN_SUCCESS;
  }

  // group_list given beside one x per group (group_type 0): it must name their rows.
  aclnnStatus CheckListAgrees(aclnnStatus status = ACLNN_ERR_INNER) {
    const int64_t* values = ListValues();
    int64_t end = 0;
    for (size_t i = 0; i < groups.size(); ++i) {
      end += groups[i].m;
      const int64_t want = list_type == 1 ? groups[i].m : end;
      if (values[i] != want) {
        return Fail(status, std::string(api_) + ": " + list_name + ": element " + std::to_string(i) + " is " +
                                         std::to_string(values[i]) + ", x's member " + std::to_string(i) + " gives " +
                                         std::to_string(want));
      }
    }
    return ACLNN_SUCCESS;
  }

  // The quantised form: the INT8 products exact (INT8, INT32 values and their sums are exact in
  // double), + the INT32 bias, then scaled in float; without scales the INT32 sums themselves.
  aclnnStatus ComputeQuant() {
    std::vector<std::vector<double>> exact(static_cast<size_t>(tensor_count()));
    auto values = [&](int slot) -> const double* {
      std::vector<double>& v = exact[static_cast<size_t>(slot)];
      if (v.empty() && tensor(slot).numel()) {
        v.resize(static_cast<size_t>(tensor(slot).numel()));
        GatherAs(tensor(slot), ComputeType::kFloat64, v.data());
      }
      return v.data();
    };
    std::vector<std::vector<float>> scales(static_cast<size_t>(tensor_count()));
    for (const Group& g : groups) {
      if (g.s >= 0 && scales[static_cast<size_t>(g.s)].empty()) scales[static_cast<size_t>(g.s)] = ScaleValues(tensor(g.s));
    }
    std::vector<float> token;
    if (per_token >= 0) {
      token.resize(static_cast<size_t>(tensor(per_token).numel()));
      GatherAs(tensor(per_token), ComputeType::kFloat32, token.data());
    }
    std::vector<std::vector<double>> ys(static_cast<size_t>(tensor_count()));
    for (int o : outs) ys[static_cast<size_t>(o)].assign(static_cast<size_t>(tensor(o).numel()), 0.0);
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const Group& g = groups[gi];
      if (g.m == 0 || g.n == 0) continue;
      const int64_t ldx = tensor(g.x).shape.back();
      const double* x = values(g.x) + g.row * ldx + g.col;
      const double* w = g.k ? values(g.w) + g.w_at : nullptr;
      const double* b = g.b >= 0 ? values(g.b) + g.b_at : nullptr;
      const float* s = g.s >= 0 ? scales[static_cast<size_t>(g.s)].data() + g.s_at : nullptr;
      double* y = ys[static_cast<size_t>(g.o)].data() + g.o_at;
      for (int64_t r = 0; r < g.m; ++r) {
        for (int64_t j = 0; j < g.n; ++j) {
          double acc = 0;
          for (int64_t kk = 0; kk < g.k; ++kk) acc += x[r * ldx + kk] * w[kk * g.n + j];
          if (b) acc += b[j];
          if (!s) {
            // The README does not say what an INT32 sum past INT32's range gives (the bias can take it there).
            if (acc < INT32_MIN || acc > INT32_MAX) {
              return Fail(ACLNN_ERR_INNER, std::string(api_) + ": group " + std::to_string(gi) +
                                               ": x @ weight + bias at its row " + std::to_string(r) + ", column " +
                                               std::to_string(j) + " leaves INT32's range");
            }
            y[r * g.n + j] = acc;
            continue;
          }
          float v = static_cast<float>(acc) * s[j];
          if (per_token >= 0) v *= token[static_cast<size_t>(g.row + r)];
          y[r * g.n + j] = v;
        }
      }
    }
    for (int o : outs) ScatterFrom(ys[static_cast<size_t>(o)].data(), ComputeType::kFloat64, tensor(o));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Compute() override {
    if (Listed()) {
      if (aclnnStatus s = shared_x ? ResolveSizes() : CheckListAgrees()) return s;
    }
    if (quant) return ComputeQuant();
    std::vector<std::vector<float>> values(static_cast<size_t>(tensor_count()));
    auto floats = [&](int slot) -> const float* {
      std::vector<float>& v = values[static_cast<size_t>(slot)];
      if (!v.empty()) return v.data();
      if (IsInt4Weight(slot)) {
        const TensorDesc& nibbles = int4_weights[static_cast<size_t>(slot)];
        v.resize(static_cast<size_t>(nibbles.numel()));
        GatherInt4(nibbles, v.data());
      } else if (tensor(slot).numel()) {
        v.resize(static_cast<size_t>(tensor(slot).numel()));
        GatherAs(tensor(slot), ComputeType::kFloat32, v.data());
      }
      return v.data();
    };
    for (int o : outs) values[static_cast<size_t>(o)].assign(static_cast<size_t>(tensor(o).numel()), 0.0f);
    for (const Group& g : groups) {
      if (g.m == 0 || g.n == 0) continue;
      const int64_t ldx = tensor(g.x).rank() ? tensor(g.x).shape.back() : 1;
      const float* x = floats(g.x) + g.row * ldx + g.col;
      const float* w = floats(g.w) + g.w_at;
      std::vector<float> dequantised;
      if (g.as >= 0) {
        // (weight + antiquant_offset) * antiquant_scale per column n, in float32.
        dequantised.resize(static_cast<size_t>(g.k * g.n));
        const float* scale = floats(g.as) + g.a_at;
        const float* offset = g.ao >= 0 ? floats(g.ao) + g.a_at : nullptr;
        for (int64_t kk = 0; kk < g.k; ++kk) {
          for (int64_t j = 0; j < g.n; ++j) {
            dequantised[static_cast<size_t>(kk * g.n + j)] = (w[kk * g.n + j] + (offset ? offset[j] : 0.0f)) * scale[j];
          }
        }
        w = dequantised.data();
      }
      const float* b = g.b >= 0 ? floats(g.b) + g.b_at : nullptr;
      float* y = values[static_cast<size_t>(g.o)].data() + g.o_at;
      if (g.k == 0) {
        std::fill(y, y + g.m * g.n, 0.0f);
      } else {
        scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(g.m), static_cast<int>(g.n),
                          static_cast<int>(g.k), 1.0f, x, static_cast<int>(ldx), w, static_cast<int>(g.n), 0.0f, y,
                          static_cast<int>(g.n));
      }
      if (b) {
        for (int64_t r = 0; r < g.m; ++r) {
          for (int64_t j = 0; j < g.n; ++j) y[r * g.n + j] += b[j];
        }
      }
    }
    for (int o : outs) ScatterFrom(values[static_cast<size_t>(o)].data(), ComputeType::kFloat32, tensor(o));
    return ACLNN_SUCCESS;
  }

};

// A list role's members, none when the caller passed NULL or an empty list (op-plugin passes an
// empty aclTensorList for every absent optional list).
const std::vector<TensorDesc>& Members(const Call& call, const FamilySpec& family, int role) {
  static const std::vector<TensorDesc> kNone;
  const std::vector<TensorDesc>* list = RoleTensorList(call, family, role);
  return list ? *list : kNone;
}

enum AddSlot { kAddX, kAddWeight, kAddList, kAddY, kAddSlots };

class GroupedMatmulAddWork final : public FamilyWork {
 public:
  explicit GroupedMatmulAddWork(const char* api) : FamilyWork(api, kAddSlots) {}

  int64_t k = 0, m = 0, n = 0;

 private:
  aclnnStatus Compute() override {
    const TensorRef& list = tensor(kAddList);
    const int64_t groups = list.numel();
    const int64_t* ends = groups ? IndexValues(list, 0) : nullptr;
    for (int64_t i = 0; i < groups; ++i) {
      const int64_t start = i ? ends[i - 1] : 0;
      if (ends[i] < start || ends[i] > k) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + list.name + ": element " + std::to_string(i) + " (" +
                                         std::to_string(ends[i]) + ") is not an end in [" + std::to_string(start) +
                                         ", " + std::to_string(k) + "] (non-decreasing, at most x's K rows)");
      }
    }
    std::vector<float> y(static_cast<size_t>(groups * m * n)), x(static_cast<size_t>(k * m)), w(static_cast<size_t>(k * n));
    if (y.empty()) return ACLNN_SUCCESS;
    GatherAs(tensor(kAddY), ComputeType::kFloat32, y.data());
    if (!x.empty()) GatherAs(tensor(kAddX), ComputeType::kFloat32, x.data());
    if (!w.empty()) GatherAs(tensor(kAddWeight), ComputeType::kFloat32, w.data());
    for (int64_t i = 0; i < groups; ++i) {
      const int64_t start = i ? ends[i - 1] : 0, rows = ends[i] - start;
      if (rows == 0) continue;
      scipy_cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                        static_cast<int>(rows), 1.0f, x.data() + start * m, static_cast<int>(m), w.data() + start * n,
                        static_cast<int>(n), 1.0f, y.data() + i * m * n, static_cast<int>(n));
    }
    ScatterFrom(y.data(), ComputeType::kFloat32, tensor(kAddY));
    return ACLNN_SUCCESS;
  }
};

aclnnStatus PlanGroupedMatmulAdd(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  const TensorDesc* list = RoleTensor(call, family, F::Role::kGroupList);
  const TensorDesc* y = RoleTensor(call, family, F::Role::kOut);
  if (!x || !weight || !list || !y) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  // Repeated from the semantics' checks so that no other mode reaches the kernel.
  if (!RoleBool(call, family, F::Role::kTransposeX, true)) return reject(F::Role::kTransposeX, "false: only true is supported");
  if (RoleBool(call, family, F::Role::kTransposeWeight, false)) {
    return reject(F::Role::kTransposeWeight, "true: only false is supported");
  }
  if (RoleInt(call, family, F::Role::kGroupType, 2) != 2) return reject(F::Role::kGroupType, "only 2 (K) is supported");
  if (x->view.size() != 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [K, M]");
  if (weight->view.size() != 2 || weight->view[0] != x->view[0]) {
    return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + " is not [K, N] for x " + DimsText(x->view));
  }
  if (weight->dtype != x->dtype) {
    return reject(F::Role::kWeight, std::string("dtype ") + DTypeName(weight->dtype) + " is not x's " + DTypeName(x->dtype));
  }
  if (list->view.size() != 1 || list->view[0] > 1024) {
    return reject(F::Role::kGroupList, "shape " + DimsText(list->view) + " is not [g], g at most 1024");
  }
  GroupedMatmulAddWork* made = new GroupedMatmulAddWork(call.spec.name);
  std::unique_ptr<GroupedMatmulAddWork> owned(made);
  made->k = x->view[0];
  made->m = x->view[1];
  made->n = weight->view[1];
  made->tensor(kAddX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kAddWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  made->tensor(kAddList).Set(RoleName(call, family, F::Role::kGroupList), *list);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *y, Dims{list->view[0], made->m, made->n},
                                       "[g, M, N]", kAddY)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanGroupedMatmul(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kGroupedMatmulAdd) return PlanGroupedMatmulAdd(call, family, work);
  const ParamRejecter reject(call, family);
  // The forms the simulator does not compute, by name.
  static const struct {
    int role;
    const char* form;
  } kDeclined[] = {
      {F::Role::kOffset, "the quantised form's offset"},
      {F::Role::kActivationInput, "the activation input"},
      {F::Role::kActivationQuantScale, "the activation's quantisation"},
      {F::Role::kActivationQuantOffset, "the activation's quantisation"},
      {F::Role::kActivationFeatureOut, "the activation's feature output"},
      {F::Role::kDynQuantScaleOut, "the dynamic quantisation's scale output"},
  };
  for (const auto& d : kDeclined) {
    if (!Members(call, family, d.role).empty()) {
      return Decline(call, work, std::string(RoleName(call, family, d.role)) + " given: " + d.form +
                                     " is not simulated (the float products are)");
    }
  }
  const std::vector<TensorDesc>& xs = Members(call, family, F::Role::kX);
  const std::vector<TensorDesc>& given_ws = Members(call, family, F::Role::kWeight);
  const std::vector<TensorDesc>& bs = Members(call, family, F::Role::kBias);
  const std::vector<TensorDesc>& os = Members(call, family, F::Role::kOut);
  const TensorDesc* list = RoleTensor(call, family, F::Role::kGroupList);
  Dims host_list;  // aclnnGroupedMatmul's group_list, host integers (empty: absent)
  if (!list) RoleInts(call, family, F::Role::kGroupList, &host_list);
  const bool listed = list || !host_list.empty();
  if (xs.empty()) return reject(F::Role::kX, "is empty");
  if (given_ws.empty()) return reject(F::Role::kWeight, "is empty");
  if (os.empty()) return reject(F::Role::kOut, "is empty");
  // INT4 weights (A16W4) reach the simulator as INT4, or as the INT32 words torch_npu packs them in:
  // from here on, their INT4 elements.
  const aclDataType given_weight = given_ws.front().dtype;
  const bool int4 = given_weight == ACL_INT4 || (given_weight == ACL_INT32 && xs.front().dtype != ACL_INT32);
  std::vector<TensorDesc> int4_ws;
  for (size_t i = 0; int4 && i < given_ws.size(); ++i) {
    if (given_ws[i].dtype != given_weight) {
      return reject(F::Role::kWeight, "member " + std::to_string(i) + ": dtype " + DTypeName(given_ws[i].dtype) +
                                          " is not member 0's " + DTypeName(given_weight));
    }
    if (!AsInt4(given_ws[i], &int4_ws.emplace_back())) {
      return Decline(call, work, "for member " + std::to_string(i) + " of " + RoleName(call, family, F::Role::kWeight) +
                                     ": INT32 words with no axis of stride 1 (the axis they pack eight INT4 along is unknown)");
    }
  }
  if (int4 && xs.front().dtype != ACL_FLOAT16 && xs.front().dtype != ACL_BF16) {
    return Decline(call, work, std::string("for an INT4 weight beside x of dtype ") + DTypeName(xs.front().dtype) +
                                   " (A8W4 and A4W4; A16W4, beside FLOAT16 or BFLOAT16 x, is)");
  }
  const std::vector<TensorDesc>& ws = int4 ? int4_ws : given_ws;
  const int64_t act = RoleInt(call, family, F::Role::kActType, 0);
  if (act != 0) {
    return reject(F::Role::kActType, std::to_string(act) +
                                         " is not 0: the README computes activations in the quantised forms only");
  }
  const int64_t split = RoleInt(call, family, F::Role::kSplitItem, 0);
  // Without a groupType parameter (aclnnGroupedMatmul): M-axis groups by group_list, else an x per group.
  const bool typed = family.roles[F::Role::kGroupType] >= 0;
  const int64_t type = typed ? RoleInt(call, family, F::Role::kGroupType, -1) : (listed || xs.size() > 1 ? 0 : -1);
  const int64_t list_type = RoleInt(call, family, F::Role::kGroupListType, 0);
  if (split < 0 || split > 3) return reject(F::Role::kSplitItem, std::to_string(split) + " is none of 0, 1, 2, 3");
  if (type != -1 && type != 0 && type != 2) return reject(F::Role::kGroupType, std::to_string(type) + " is none of -1, 0, 2");
  if (list_type == 2) {
    return Decline(call, work, std::string(RoleName(call, family, F::Role::kGroupListType)) +
                                   " 2 (sparse): the README does not define group_list's first column");
  }
  if (list_type != 0 && list_type != 1) {
    return reject(F::Role::kGroupListType, std::to_string(list_type) + " is none of 0, 1, 2");
  }
  const bool one_out = split >= 2;

  // dtypes: one float dtype throughout, or the quantised form's INT8 x and weight with the out its
  // scale's dtype names (the README's A2/A3 table).
  const aclDataType dtype = xs.front().dtype;
  const bool quant = dtype == ACL_INT8;
  const std::vector<TensorDesc>& ss = Members(call, family, F::Role::kScale);
  const std::vector<TensorDesc>& ps = Members(call, family, F::Role::kPerTokenScale);
  const std::vector<TensorDesc>& as = Members(call, family, F::Role::kAntiquantScale);
  const std::vector<TensorDesc>& aos = Members(call, family, F::Role::kAntiquantOffset);
  // The antiquantised form: an INT8 or INT4 weight beside a float x, dequantised per column.
  const bool antiquant = !quant && (ws.front().dtype == ACL_INT8 || int4);
  if (antiquant) {
    if (dtype != ACL_FLOAT16 && dtype != ACL_BF16) {
      return reject(F::Role::kWeight, std::string("dtype ") + DTypeName(ws.front().dtype) + " beside x " + DTypeName(dtype) +
                                          ": the antiquantised form takes FLOAT16 or BFLOAT16 x (the README)");
    }
    if (type != -1 && type != 0) {
      return reject(F::Role::kGroupType, std::to_string(type) + ": the antiquantised form takes -1 or 0 (the README)");
    }
    if (as.empty()) {
      return reject(F::Role::kAntiquantScale, std::string("is absent: an ") + DTypeName(ws.front().dtype) +
                                                  " weight beside a float x needs it");
    }
    for (int role : {int{F::Role::kAntiquantScale}, int{F::Role::kAntiquantOffset}}) {
      const std::vector<TensorDesc>& list = Members(call, family, role);
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].dtype != dtype) {
          return reject(role, "member " + std::to_string(i) + ": dtype " + DTypeName(list[i].dtype) + " is not x's " +
                                  DTypeName(dtype));
        }
      }
    }
  } else {
    for (int role : {int{F::Role::kAntiquantScale}, int{F::Role::kAntiquantOffset}}) {
      if (!Members(call, family, role).empty()) return reject(role, "is given without an INT8 or INT4 weight beside a float x");
    }
  }
  if (!quant) {
    if (!ComputesInFloat32(dtype)) return DeclineDtype(call, work, dtype);
    for (int role : {int{F::Role::kScale}, int{F::Role::kPerTokenScale}}) {
      if (!Members(call, family, role).empty()) {
        return Decline(call, work, std::string(RoleName(call, family, role)) + " given with x of dtype " +
                                       DTypeName(dtype) + ": only the INT8 quantised form is simulated");
      }
    }
  }
  aclDataType out_dtype = dtype;
  if (quant) {
    if (type != 0) {
      // aclnnGroupedMatmul has no groupType: its -1 is one x without group_list, x the argument to name.
      return reject(typed ? F::Role::kGroupType : F::Role::kX,
                    (typed ? std::to_string(type) : std::string("one INT8 tensor without group_list (group_type -1)")) +
                        ": the quantised form takes group_type 0 only (the README)");
    }
    if (ss.empty()) {
      if (!ps.empty()) return reject(F::Role::kPerTokenScale, "is given without scale");
      out_dtype = ACL_INT32;
    } else {
      for (size_t i = 1; i < ss.size(); ++i) {
        if (ss[i].dtype != ss[0].dtype) {
          return reject(F::Role::kScale, "member " + std::to_string(i) + ": dtype " + DTypeName(ss[i].dtype) +
                                             " is not member 0's " + DTypeName(ss[0].dtype));
        }
      }
      if (IsPackedScale(ss[0].dtype)) {
        return Decline(call, work, std::string(RoleName(call, family, F::Role::kScale)) + " of dtype " +
                                       DTypeName(ss[0].dtype) + ": the requantisation to INT8 is not simulated (the "
                                       "README does not state how it rounds)");
      }
      if (ss[0].dtype != ACL_BF16 && ss[0].dtype != ACL_FLOAT) {
        return reject(F::Role::kScale, std::string("dtype ") + DTypeName(ss[0].dtype) + " is none of FLOAT, BFLOAT16, UINT64");
      }
      out_dtype = ss[0].dtype == ACL_BF16 ? ACL_BF16 : ACL_FLOAT16;
    }
    if (!ps.empty()) {
      if (ps.size() != 1 || ps[0].dtype != ACL_FLOAT) {
        return reject(F::Role::kPerTokenScale, "is not one FLOAT tensor");
      }
      if (xs.size() != 1) {
        return Decline(call, work, std::string(RoleName(call, family, F::Role::kPerTokenScale)) +
                                       " beside an x per group: the README does not lay out its rows");
      }
      if (ps[0].view.size() != 1 || xs[0].view.empty() || ps[0].view[0] != xs[0].view[0]) {
        return reject(F::Role::kPerTokenScale, "shape " + DimsText(ps[0].view) + " is not [M], one value per row of x " +
                                                   DimsText(xs[0].view));
      }
    }
  }
  auto member = [](size_t i) { return "member " + std::to_string(i); };
  for (size_t i = 0; i < xs.size(); ++i) {
    if (xs[i].dtype != dtype) {
      return reject(F::Role::kX, member(i) + ": dtype " + DTypeName(xs[i].dtype) + " is not member 0's " + DTypeName(dtype));
    }
  }
  const aclDataType weight_dtype = antiquant ? ws.front().dtype : dtype;
  for (size_t i = 0; i < ws.size(); ++i) {
    if (ws[i].dtype != weight_dtype) {
      return reject(F::Role::kWeight, member(i) + ": dtype " + DTypeName(ws[i].dtype) + " is not member 0's " +
                                          DTypeName(weight_dtype) + (antiquant ? "" : ", x's"));
    }
  }
  for (size_t i = 0; i < os.size(); ++i) {
    if (os[i].dtype != out_dtype) {
      return reject(F::Role::kOut, member(i) + ": dtype " + DTypeName(os[i].dtype) + " is not " +
                                       DTypeName(out_dtype) + (quant ? ", the README's for this scale" : ", x's"));
    }
  }
  const aclDataType bias_dtype = quant ? ACL_INT32 : dtype == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_FLOAT;
  for (size_t i = 0; i < bs.size(); ++i) {
    if (bs[i].dtype != bias_dtype) {
      return reject(F::Role::kBias, member(i) + ": dtype " + DTypeName(bs[i].dtype) + " is not " +
                                        DTypeName(bias_dtype) + ", the README's for x " + DTypeName(dtype));
    }
  }
  if (list && (list->view.size() != 1 || list->dtype != ACL_INT64)) {
    return reject(F::Role::kGroupList, "is not a 1-d INT64 tensor");
  }

  // The weights: one [g, K, N] tensor (group_type 0) or g [k_i, n_i] matrices.
  const bool stacked_weight = ws.size() == 1 && ws[0].view.size() == 3;
  if (stacked_weight && type != 0) {
    return reject(F::Role::kWeight, "is one 3-d tensor, which only group_type 0 takes");
  }
  for (size_t i = 0; i < ws.size(); ++i) {
    if (!stacked_weight && ws[i].view.size() != 2) {
      return reject(F::Role::kWeight, member(i) + " has " + std::to_string(ws[i].view.size()) +
                                          " dimensions, not 2 (nor is the list one 3-d tensor)");
    }
  }
  const size_t g = stacked_weight ? static_cast<size_t>(ws[0].view[0]) : ws.size();
  auto w_k = [&](size_t i) { return stacked_weight ? ws[0].view[1] : ws[i].view[0]; };
  auto w_n = [&](size_t i) { return stacked_weight ? ws[0].view[2] : ws[i].view[1]; };

  // Slots: x's members, weight's, bias's, group_list, out's, scale's, per_token_scale, antiquant_scale's,
  // antiquant_offset's.
  const int x0 = 0, w0 = x0 + static_cast<int>(xs.size()), b0 = w0 + static_cast<int>(ws.size());
  const int l0 = b0 + static_cast<int>(bs.size()), o0 = l0 + (list ? 1 : 0);
  const int s0 = o0 + static_cast<int>(os.size()), p0 = s0 + static_cast<int>(ss.size());
  const int as0 = p0 + static_cast<int>(ps.size()), ao0 = as0 + static_cast<int>(as.size());
  const int slots = ao0 + static_cast<int>(aos.size());
  auto* made = new GroupedMatmulWork(call.spec.name, slots);
  std::unique_ptr<GroupedMatmulWork> owned(made);
  const char* x_name = RoleName(call, family, F::Role::kX);
  for (size_t i = 0; i < xs.size(); ++i) made->tensor(x0 + static_cast<int>(i)).Set(x_name, xs[i]);
  if (int4) made->int4_weights.resize(static_cast<size_t>(w0) + ws.size());
  for (size_t i = 0; i < ws.size(); ++i) {
    const int slot = w0 + static_cast<int>(i);
    if (int4) made->int4_weights[static_cast<size_t>(slot)] = ws[i];
    made->tensor(slot).Set(RoleName(call, family, F::Role::kWeight), int4 ? Int4Bytes(ws[i]) : ws[i]);
  }
  for (size_t i = 0; i < bs.size(); ++i) made->tensor(b0 + static_cast<int>(i)).Set(RoleName(call, family, F::Role::kBias), bs[i]);
  if (list) {
    made->tensor(l0).Set(RoleName(call, family, F::Role::kGroupList), *list);
    made->group_list = l0;
  }
  made->host_list.assign(host_list.begin(), host_list.end());
  made->list_name = RoleName(call, family, F::Role::kGroupList);
  made->list_type = list_type;
  made->one_out = one_out;
  made->quant = quant;
  if (!ps.empty()) {
    made->tensor(p0).Set(RoleName(call, family, F::Role::kPerTokenScale), ps[0]);
    made->per_token = p0;
  }

  // Bias: one [g, N] beside a 3-d weight, or one [n_i] per group.
  const bool stacked_bias = bs.size() == 1 && bs[0].view.size() == 2;
  if (!bs.empty()) {
    if (type == 2) return reject(F::Role::kBias, "is given: the K axis split takes none");
    if (stacked_bias ? (bs[0].view[0] != static_cast<int64_t>(g)) : bs.size() != g) {
      return reject(F::Role::kBias, "has " + std::to_string(stacked_bias ? bs[0].view[0] : static_cast<int64_t>(bs.size())) +
                                        " groups, weight " + std::to_string(g));
    }
    for (size_t i = 0; i < g; ++i) {
      const Dims& shape = stacked_bias ? bs[0].view : bs[i].view;
      if (shape.empty() || shape.back() != w_n(i) || (!stacked_bias && shape.size() != 1)) {
        return reject(F::Role::kBias, member(stacked_bias ? 0 : i) + ": shape " + DimsText(shape) + " is not [" +
                                          (stacked_bias ? std::to_string(g) + ", " : std::string()) +
                                          std::to_string(w_n(i)) + "]");
      }
    }
  }

  const auto shape_of = [](const TensorDesc& t) { return DimsText(t.view); };
  std::vector<Group>& groups = made->groups;
  groups.resize(g);
  for (size_t i = 0; i < g; ++i) {
    Group& gr = groups[i];
    gr.w = w0 + (stacked_weight ? 0 : static_cast<int>(i));
    gr.w_at = stacked_weight ? static_cast<int64_t>(i) * w_k(i) * w_n(i) : 0;
    gr.k = w_k(i);
    gr.n = w_n(i);
    if (!bs.empty()) {
      gr.b = b0 + (stacked_bias ? 0 : static_cast<int>(i));
      gr.b_at = stacked_bias ? static_cast<int64_t>(i) * w_n(i) : 0;
    }
  }
  // The per-column lists (scale, antiquant_scale, antiquant_offset): one [g, N] beside a 3-d weight, or
  // one [n_i] per weight; group i reads its N values from `slot` (+ i) at element `at` into its `field`.
  auto per_column = [&](int role, const std::vector<TensorDesc>& ts, int slot0, int Group::*field,
                        int64_t Group::*at) -> aclnnStatus {
    if (ts.empty()) return ACLNN_SUCCESS;
    if (stacked_weight ? ts.size() != 1 : ts.size() != g) {
      return reject(role, "has " + std::to_string(ts.size()) + " members, " +
                              (stacked_weight ? std::string("one beside a 3-d weight") : "weight " + std::to_string(g)));
    }
    for (size_t i = 0; i < g; ++i) {
      // [g, N] or [g, 1, N] alike (the README admits 1 to 3 dimensions): N values per group.
      const TensorDesc& t = ts[stacked_weight ? 0 : i];
      const int64_t want = (stacked_weight ? static_cast<int64_t>(g) : 1) * w_n(i);
      if (t.view.empty() || t.view.back() != w_n(i) || t.numel() != want ||
          (stacked_weight && t.view.size() > 1 && t.view[0] != static_cast<int64_t>(g))) {
        return reject(role, member(stacked_weight ? 0 : i) + ": shape " + DimsText(t.view) + " is not [" +
                                (stacked_weight ? std::to_string(g) + ", " : std::string()) + std::to_string(w_n(i)) + "]");
      }
      groups[i].*field = slot0 + (stacked_weight ? 0 : static_cast<int>(i));
      made->tensor(groups[i].*field).Set(RoleName(call, family, role), t);
      groups[i].*at = stacked_weight ? static_cast<int64_t>(i) * w_n(i) : 0;
    }
    return ACLNN_SUCCESS;
  };
  if (aclnnStatus s = per_column(F::Role::kScale, ss, s0, &Group::s, &Group::s_at)) return s;
  if (aclnnStatus s = per_column(F::Role::kAntiquantScale, as, as0, &Group::as, &Group::a_at)) return s;
  if (aclnnStatus s = per_column(F::Role::kAntiquantOffset, aos, ao0, &Group::ao, &Group::a_at)) return s;
  const int64_t list_len = list ? list->view[0] : static_cast<int64_t>(host_list.size());
  auto need_outs = [&](size_t count) -> aclnnStatus {
    if (os.size() != count) {
      return reject(F::Role::kOut, "has " + std::to_string(os.size()) + " members, split_item " + std::to_string(split) +
                                       " with these inputs gives " + std::to_string(count));
    }
    for (size_t i = 0; i < count; ++i) made->outs.push_back(o0 + static_cast<int>(i));
    for (size_t i = 0; i < count; ++i) made->tensor(o0 + static_cast<int>(i)).Set(RoleName(call, family, F::Role::kOut), os[i]);
    return ACLNN_SUCCESS;
  };
  auto check_out = [&](size_t i, const Dims& want) -> aclnnStatus {
    if (os[i].view != want) {
      return reject(F::Role::kOut, member(i) + ": shape " + shape_of(os[i]) + " is not " + DimsText(want));
    }
    return ACLNN_SUCCESS;
  };
  auto same_n = [&]() -> aclnnStatus {
    for (size_t i = 1; i < g; ++i) {
      if (w_n(i) != w_n(0)) return reject(F::Role::kWeight, member(i) + ": N " + std::to_string(w_n(i)) + " is not member 0's " + std::to_string(w_n(0)) + " (one output takes one N)");
    }
    return ACLNN_SUCCESS;
  };

  if (type == -1 || (type == 0 && xs.size() > 1)) {
    // One x per group.
    if (xs.size() != g) return reject(F::Role::kX, "has " + std::to_string(xs.size()) + " members, weight " + std::to_string(g));
    if (type == -1 && listed) return reject(F::Role::kGroupList, "is given: group_type -1 takes none");
    if (type == -1 && one_out) return reject(F::Role::kSplitItem, std::to_string(split) + ": group_type -1 takes 0 or 1");
    if (listed && list_len != static_cast<int64_t>(g)) {
      return reject(F::Role::kGroupList, "has " + std::to_string(list_len) + " elements, weight " + std::to_string(g));
    }
    int64_t rows = 0;
    for (size_t i = 0; i < g; ++i) {
      const Dims& v = xs[i].view;
      const size_t lo = 2, hi = type == -1 ? 6 : 2;
      if (v.size() < lo || v.size() > hi || v.size() != xs[0].view.size()) {
        return reject(F::Role::kX, member(i) + ": shape " + shape_of(xs[i]) + " is not of " + std::to_string(lo) +
                                       (hi > lo ? " to " + std::to_string(hi) : std::string()) + " dimensions as member 0");
      }
      if (v.back() != w_k(i)) {
        return reject(F::Role::kX, member(i) + ": K " + std::to_string(v.back()) + " is not weight's " + std::to_string(w_k(i)));
      }
      groups[i].x = x0 + static_cast<int>(i);
      groups[i].m = xs[i].numel() / std::max<int64_t>(v.back(), 1);
      groups[i].o_at = one_out ? rows * w_n(i) : 0;
      rows += groups[i].m;
    }
    if (one_out) {
      if (aclnnStatus s = same_n()) return s;
      if (aclnnStatus s = need_outs(1)) return s;
      for (Group& gr : groups) gr.o = o0;
      if (aclnnStatus s = check_out(0, Dims{rows, w_n(0)})) return s;
    } else {
      if (aclnnStatus s = need_outs(g)) return s;
      for (size_t i = 0; i < g; ++i) {
        groups[i].o = o0 + static_cast<int>(i);
        Dims want = xs[i].view;
        want.back() = w_n(i);
        if (aclnnStatus s = check_out(i, want)) return s;
      }
    }
  } else if (type == 0) {
    // One x [M, K] whose rows group_list splits.
    const Dims& v = xs[0].view;
    if (v.size() != 2) return reject(F::Role::kX, "member 0: shape " + shape_of(xs[0]) + " is not 2-d");
    if (!listed) return reject(F::Role::kGroupList, "is absent: one x grouped along M needs it");
    if (list_len != static_cast<int64_t>(g)) {
      return reject(F::Role::kGroupList, "has " + std::to_string(list_len) + " elements, weight " + std::to_string(g));
    }
    for (size_t i = 0; i < g; ++i) {
      if (w_k(i) != v[1]) return reject(F::Role::kWeight, member(i) + ": K " + std::to_string(w_k(i)) + " is not x's " + std::to_string(v[1]));
      groups[i].x = x0;
    }
    made->shared_x = true;
    made->extent = v[0];
    if (one_out) {
      if (aclnnStatus s = same_n()) return s;
      if (aclnnStatus s = need_outs(1)) return s;
      for (Group& gr : groups) gr.o = o0;
      if (aclnnStatus s = check_out(0, Dims{v[0], w_n(0)})) return s;
    } else {
      if (aclnnStatus s = need_outs(g)) return s;
      made->sized_outs = true;
      for (size_t i = 0; i < g; ++i) {
        groups[i].o = o0 + static_cast<int>(i);
        if (os[i].view.size() != 2 || os[i].view[1] != w_n(i)) {
          return reject(F::Role::kOut, member(i) + ": shape " + shape_of(os[i]) + " is not [rows, " + std::to_string(w_n(i)) + "]");
        }
      }
    }
  } else {
    // group_type 2: one x [M, K] whose columns are split.
    const Dims& v = xs[0].view;
    if (xs.size() != 1 || v.size() != 2) return reject(F::Role::kX, "is not one 2-d tensor, as the K axis split takes");
    made->by_columns = true;
    made->shared_x = true;
    made->extent = v[1];
    for (Group& gr : groups) {
      gr.x = x0;
      gr.m = v[0];
    }
    if (ws.size() == 1) {
      if (!list) return reject(F::Role::kGroupList, "is absent: one weight split along K needs it");
      if (!one_out) return reject(F::Role::kSplitItem, std::to_string(split) + ": one weight split along K takes 2 or 3");
      if (w_k(0) != v[1]) return reject(F::Role::kWeight, "member 0: K " + std::to_string(w_k(0)) + " is not x's " + std::to_string(v[1]));
      // One group per element of group_list, each reading its rows of the one weight.
      const Group proto = groups[0];
      groups.assign(static_cast<size_t>(list_len), proto);
      made->stacked = true;
      if (aclnnStatus s = need_outs(1)) return s;
      for (Group& gr : groups) gr.o = o0;
      if (aclnnStatus s = check_out(0, Dims{list_len, v[0], w_n(0)})) return s;
    } else {
      if (list) return reject(F::Role::kGroupList, "is given: a weight per group along K takes none");
      if (one_out) return reject(F::Role::kSplitItem, std::to_string(split) + ": a weight per group along K takes 0 or 1");
      int64_t col = 0;
      for (size_t i = 0; i < g; ++i) {
        groups[i].col = col;
        col += w_k(i);
      }
      if (col > v[1]) return reject(F::Role::kWeight, "the members' K add up to " + std::to_string(col) + ", past x's " + std::to_string(v[1]));
      if (aclnnStatus s = need_outs(g)) return s;
      for (size_t i = 0; i < g; ++i) {
        groups[i].o = o0 + static_cast<int>(i);
        if (aclnnStatus s = check_out(i, Dims{v[0], w_n(i)})) return s;
      }
    }
  }
  if (aclnnStatus s = made->CheckHostList()) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
