// The ffn family: aclnnFFNV2 (torch_npu.npu_ffn; a derived page from the FFN README, its corpus page
// a stub), the README's non-quantised scenario:
//   y = activation(x @ W1 + b1) @ W2 + b2
// over x's M rows ([..., K1], its leading dimensions flattened), y [..., N2]. Without expertTokens (or
// with an empty one) one expert: W1 [K1, N1], b1 [N1], W2 [K2, N2], b2 [N2]. With it, E experts
// (W1 [E, K1, N1], b1 [E, N1], ...): x's rows taken in order, expert e's the next expertTokens[e]
// (tokensIndexFlag false: counts) or those up to expertTokens[e] (true: cumulative ends, the
// grouped-matmul pages' index lists), all M of them (the README: their total is x's M).
// In float32 (innerPrecise 0's "算子内部采用float32数据类型计算"), the intermediate kept in float32 and y
// rounded once to its dtype; innerPrecise 1, FLOAT16's high-performance mode, names a speed, not a
// result the sources define otherwise: it computes the same.
// Activations, the op library's of those names: gelu aclnnGelu's tanh form, fastgelu aclnnFastGelu's
// x / (1 + exp(-1.702 x)), relu, silu x * sigmoid(x).
// Declined by name: geglu, swiglu and reglu (no source says which half of x @ W1 they gate: aclnnGeGlu
// activates the right half by default, aclnnSwiGlu the left), and the quantised and antiquantised
// scenarios (their parameters given, or INT8/INT4 tensors): the README gives their formulas but not
// how the intermediate is requantised (scale, offset: rounding, saturation) nor how a UINT64/INT64
// deqScale encodes its value.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cblas.h>

#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/families/gelu.h"

namespace aclsim {
namespace {

using F = FfnFamily;

enum class Activation { kGelu, kFastGelu, kRelu, kSilu };

enum FfnSlot { kX, kWeight1, kWeight2, kBias1, kBias2, kY, kFfnSlots };

// The README's bounds: K1, K2 < 65536; at most 256 experts in expertTokens.
constexpr int64_t kMaxK = 65536, kMaxExperts = 256;

float Activate(Activation a, float v) {
  switch (a) {
    case Activation::kGelu: return Gelu(v, true);
    case Activation::kFastGelu: return v / (1.0f + std::exp(-1.702f * v));
    case Activation::kRelu: return v < 0.0f ? 0.0f : v;  // NaN passes through, as aten's relu
    case Activation::kSilu: return v / (1.0f + std::exp(-v));
  }
  return v;
}

class FfnWork final : public FamilyWork {
 public:
  explicit FfnWork(const char* api) : FamilyWork(api, kFfnSlots) {}

  Activation activation = Activation::kGelu;
  int64_t m = 0, k1 = 0, n1 = 0, n2 = 0;
  std::vector<int64_t> starts;  // expert e's rows [starts[e], starts[e + 1]); one expert: {0, M}
  bool has_b1 = false, has_b2 = false;

 private:
  std::vector<float> Floats(int slot) {
    std::vector<float> v(static_cast<size_t>(tensor(slot).numel()));
    if (!v.empty()) GatherAs(tensor(slot), ComputeType::kFloat32, v.data());
    return v;
  }

  aclnnStatus Compute() override {
    const std::vector<float> x = Floats(kX), w1 = Floats(kWeight1), w2 = Floats(kWeight2);
    const std::vector<float> b1 = has_b1 ? Floats(kBias1) : std::vector<float>();
    const std::vector<float> b2 = has_b2 ? Floats(kBias2) : std::vector<float>();
    std::vector<float> y(static_cast<size_t>(m * n2), 0.0f);
    std::vector<float> h;
    for (size_t e = 0; e + 1 < starts.size(); ++e) {
      const int64_t row = starts[e], rows = starts[e + 1] - starts[e];
      if (rows == 0 || n2 == 0) continue;
      const int64_t ei = static_cast<int64_t>(e);
      h.assign(static_cast<size_t>(rows * n1), 0.0f);
      if (k1 && n1) {
        scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(n1),
                          static_cast<int>(k1), 1.0f, x.data() + row * k1, static_cast<int>(k1),
                          w1.data() + ei * k1 * n1, static_cast<int>(n1), 0.0f, h.data(), static_cast<int>(n1));
      }
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < n1; ++j) {
          float& v = h[static_cast<size_t>(r * n1 + j)];
          v = Activate(activation, has_b1 ? v + b1[static_cast<size_t>(ei * n1 + j)] : v);
        }
      }
      float* out = y.data() + row * n2;
      if (n1) {
        scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(n2),
                          static_cast<int>(n1), 1.0f, h.data(), static_cast<int>(n1), w2.data() + ei * n1 * n2,
                          static_cast<int>(n2), 0.0f, out, static_cast<int>(n2));
      }
      if (has_b2) {
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t j = 0; j < n2; ++j) out[r * n2 + j] += b2[static_cast<size_t>(ei * n2 + j)];
        }
      }
    }
    ScatterFrom(y.data(), ComputeType::kFloat32, tensor(kY));
    return ACLNN_SUCCESS;
  }
};

bool IsFloat(aclDataType d) { return d == ACL_FLOAT16 || d == ACL_BF16; }

}  // namespace

aclnnStatus PlanFfn(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* w1 = RoleTensor(call, family, F::Role::kWeight1);
  const TensorDesc* w2 = RoleTensor(call, family, F::Role::kWeight2);
  const TensorDesc* b1 = RoleTensor(call, family, F::Role::kBias1);
  const TensorDesc* b2 = RoleTensor(call, family, F::Role::kBias2);
  const TensorDesc* y = RoleTensor(call, family, F::Role::kY);
  if (!x || !w1 || !w2 || !y) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  const std::string activation = RoleText(call, family, F::Role::kActivation);
  Activation act;
  if (activation == "gelu") {
    act = Activation::kGelu;
  } else if (activation == "fastgelu") {
    act = Activation::kFastGelu;
  } else if (activation == "relu") {
    act = Activation::kRelu;
  } else if (activation == "silu") {
    act = Activation::kSilu;
  } else if (activation == "geglu" || activation == "swiglu" || activation == "reglu") {
    return Decline(call, work, "for activation " + activation + ": no source says which half of x @ W1 it gates");
  } else {
    return reject(F::Role::kActivation, "\"" + activation + "\" is none of fastgelu, gelu, relu, silu, geglu, swiglu, reglu");
  }
  static const struct {
    int role;
    const char* scenario;
  } kQuantised[] = {
      {F::Role::kScale, "quantised"},           {F::Role::kOffset, "quantised"},
      {F::Role::kDeqScale1, "quantised"},       {F::Role::kDeqScale2, "quantised"},
      {F::Role::kAntiquantScale1, "antiquantised"}, {F::Role::kAntiquantScale2, "antiquantised"},
      {F::Role::kAntiquantOffset1, "antiquantised"}, {F::Role::kAntiquantOffset2, "antiquantised"},
  };
  for (const auto& q : kQuantised) {
    if (RoleTensor(call, family, q.role)) {
      return Decline(call, work, std::string(RoleName(call, family, q.role)) + " given: the " + q.scenario +
                                     " scenario is not simulated (its requantisation and deqScale encoding are not defined)");
    }
  }
  // The scenarios' dtypes, with or without their parameters: which one a call means is the simulator's
  // to name, not to complete.
  if (x->dtype == ACL_INT8) return Decline(call, work, "for an INT8 x: the quantised scenario is not simulated");
  if (IsFloat(x->dtype) && (w1->dtype == ACL_INT8 || w1->dtype == ACL_INT4)) {
    return Decline(call, work, std::string("for a ") + DTypeName(w1->dtype) + " weight1: the antiquantised scenario is not simulated");
  }
  if (!IsFloat(x->dtype) || w1->dtype != x->dtype || w2->dtype != x->dtype) {
    return reject(F::Role::kWeight1, std::string("dtype ") + DTypeName(w1->dtype) + " and weight2's " +
                                         DTypeName(w2->dtype) + " are not x's " + DTypeName(x->dtype));
  }
  if (y->dtype != x->dtype) {
    return reject(F::Role::kY, std::string("dtype ") + DTypeName(y->dtype) + " is not x's " + DTypeName(x->dtype));
  }
  const int64_t precise = RoleInt(call, family, F::Role::kInnerPrecise, 0);
  if (precise != 0 && precise != 1) return reject(F::Role::kInnerPrecise, std::to_string(precise) + " is neither 0 nor 1");
  if (precise != 0 && x->dtype == ACL_BF16) {
    return reject(F::Role::kInnerPrecise, "1 beside BFLOAT16: the README allows only 0 there");
  }
  if (x->view.size() < 2 || x->view.size() > 8) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not 2 to 8 dimensions");
  Dims tokens;
  RoleInts(call, family, F::Role::kExpertTokens, &tokens);
  const bool experts = !tokens.empty();
  const size_t wrank = experts ? 3 : 2;
  const char* wform = experts ? "[E, K, N] (expertTokens given)" : "[K, N] (no expertTokens)";
  if (w1->view.size() != wrank) return reject(F::Role::kWeight1, "shape " + DimsText(w1->view) + " is not " + wform);
  if (w2->view.size() != wrank) return reject(F::Role::kWeight2, "shape " + DimsText(w2->view) + " is not " + wform);
  const int64_t e = experts ? w1->view[0] : 1;
  const int64_t k1 = x->view.back(), n1 = w1->view[wrank - 1], n2 = w2->view[wrank - 1];
  if (w1->view[wrank - 2] != k1) {
    return reject(F::Role::kWeight1, "shape " + DimsText(w1->view) + ": K1 is not x's last dimension " + std::to_string(k1));
  }
  if ((experts && w2->view[0] != e) || w2->view[wrank - 2] != n1) {
    return reject(F::Role::kWeight2, "shape " + DimsText(w2->view) + " does not follow weight1's " + DimsText(w1->view) +
                                         " (its experts, and K2 = N1)");
  }
  if (n2 != k1) return reject(F::Role::kWeight2, "N2 " + std::to_string(n2) + " is not K1 " + std::to_string(k1));
  if (k1 >= kMaxK || n1 >= kMaxK) return reject(F::Role::kWeight1, "K1 or K2 is not below 65536");
  const Dims bias_shape1 = experts ? Dims{e, n1} : Dims{n1};
  const Dims bias_shape2 = experts ? Dims{e, n2} : Dims{n2};
  if (b1) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kBias1, b1, bias_shape1, experts ? "[E, N1]" : "[N1]")) return s;
  }
  if (b2) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kBias2, b2, bias_shape2, experts ? "[E, N2]" : "[N2]")) return s;
  }
  for (const TensorDesc* b : {b1, b2}) {
    if (b && b->dtype != ACL_FLOAT16 && b->dtype != ACL_FLOAT) {
      return reject(b == b1 ? F::Role::kBias1 : F::Role::kBias2,
                    std::string("dtype ") + DTypeName(b->dtype) + " is neither FLOAT16 nor FLOAT (INT32 is the quantised scenario's)");
    }
  }
  int64_t m = 1;
  for (size_t i = 0; i + 1 < x->view.size(); ++i) m *= x->view[i];
  std::vector<int64_t> starts{0};
  if (experts) {
    if (static_cast<int64_t>(tokens.size()) > kMaxExperts || static_cast<int64_t>(tokens.size()) != e) {
      return reject(F::Role::kExpertTokens, std::to_string(tokens.size()) + " values: not weight1's " + std::to_string(e) +
                                                " experts, at most 256");
    }
    const bool ends = RoleBool(call, family, F::Role::kTokensIndexFlag, false);
    for (size_t i = 0; i < tokens.size(); ++i) {
      const int64_t end = ends ? tokens[i] : starts.back() + tokens[i];
      if (tokens[i] < 0 || end < starts.back() || end > m) {
        return reject(F::Role::kExpertTokens, "value " + std::to_string(i) + " (" + std::to_string(tokens[i]) +
                                                  (ends ? ") is not a cumulative end" : ") is not a count") +
                                                  " within x's " + std::to_string(m) + " rows");
      }
      starts.push_back(end);
    }
    if (starts.back() != m) {
      return reject(F::Role::kExpertTokens, "the experts' " + std::to_string(starts.back()) + " rows are not x's M " +
                                                std::to_string(m));
    }
  } else {
    starts.push_back(m);
  }
  FfnWork* made = new FfnWork(call.spec.name);
  std::unique_ptr<FfnWork> owned(made);
  made->activation = act;
  made->m = m;
  made->k1 = k1;
  made->n1 = n1;
  made->n2 = n2;
  made->starts = std::move(starts);
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kWeight1).Set(RoleName(call, family, F::Role::kWeight1), *w1);
  made->tensor(kWeight2).Set(RoleName(call, family, F::Role::kWeight2), *w2);
  if (b1) made->tensor(kBias1).Set(RoleName(call, family, F::Role::kBias1), *b1);
  if (b2) made->tensor(kBias2).Set(RoleName(call, family, F::Role::kBias2), *b2);
  made->has_b1 = b1 != nullptr;
  made->has_b2 = b2 != nullptr;
  Dims shape = x->view;
  shape.back() = n2;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kY, *y, shape, "x's shape with N2 last", kY)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
