// The mla_prolog family: DeepSeek's Multi-Head Latent Attention prolog (aclnnMlaProlog, aclnnMlaPrologV2WeightNz and
// aclnnMlaPrologV3WeightNz: torch_npu.npu_mla_prolog_v2 and _v3) as the pages' formulas state it, in their
// non-quantised scenario (V3's alpha_q = qcQrScale and alpha_kv = kcScale; 1 before V3):
//   cQ = RmsNorm(x @ W^DQ) * gamma_cq * alpha_q        [T, Hcq]
//   [qC | qR'] of head n = cQ @ W^UQQR                 [T, N, D + Dr]
//   query[t, n] = qC[t, n] @ W^UK[n]                   [T, N, Hckv]
//   query_rope = ROPE(qR')                             [T, N, Dr]
//   [cKV | kR'] = x @ W^DKVKR                          [T, Hckv + Dr]
//   kv_cache[cacheIndex[t]] = RmsNorm(cKV) * gamma_ckv * alpha_kv, kr_cache[cacheIndex[t]] = ROPE(kR')
// The tokens T are tokenX's rows ([T, He] or [B, S, He]). ROPE is InterleaveRope's rotation (rotation.h mode 3)
// by ropeSin and ropeCos of the token; the norms' rstd as rms_rows.h computes it. The products run in float on
// OpenBLAS, the weights read in FRACTAL_NZ (fractal_nz.h) or ND, and each product and norm is rounded to tokenX's
// dtype before the next step reads it (the Cube and the vector units hand BFLOAT16 on). Caches: "PA_BSND" a
// [BlockNum * BlockSize] row per slot through the cache's strides, "PA_NZ" each block as [H / C0, BlockSize, C0]
// (C0 = 32 bytes) of a dense cache. Phase 1 checks the pages' fixed sizes (He 7168 or 7680, Hcq 1536, Hckv 512,
// D 128, Dr 64, Nkv 1, BlockSize 16 or 128, N a power of 2 up to 128) and every shape against them; the quantised
// scenarios (an INT8 tensor; their scales with BFLOAT16 ones fail the pages' dtype combinations first) are refused
// by name, as their roundings are not stated, and so are V3's reserved inputs, modes and outputs other than their
// defaults; phase 2 refuses a cacheIndex outside [0, BlockNum * BlockSize) by name. dequantScaleQNopeOutOptional,
// [1] or absent in this scenario, is not written.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cblas.h>

#include "common/dtypes.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/families/fractal_nz.h"
#include "opapi/families/rms_rows.h"
#include "opapi/families/rotation.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MlaPrologFamily;

enum Slot { kX, kWeightDq, kWeightUqQr, kWeightUk, kWeightDkvKr, kGammaCq, kGammaCkv, kSin, kCos, kCacheIndex,
            kKvCache, kKrCache, kQuery, kQueryRope, kSlots };

// The pages' fixed sizes.
constexpr int64_t kHcq = 1536, kHckv = 512, kD = 128, kDr = 64;
// InterleaveRope's rotation (rotation.h).
constexpr int64_t kInterleaveHalf = 3;

class MlaPrologWork final : public FamilyWork {
 public:
  explicit MlaPrologWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t tokens = 0, he = 0, heads = 0, slots = 0, block_size = 0;
  double epsilon_cq = 1e-5, epsilon_ckv = 1e-5;
  float alpha_q = 1, alpha_kv = 1;  // V3's qcQrScale and kcScale
  bool pa_nz = false;
  aclDataType held = ACL_BF16;        // tokenX's dtype: what each step's result is rounded to
  NzLayout nz[kSlots];                // the FRACTAL_NZ weights' layouts (used: false for an ND weight)

 private:
  // out [m, n] = a [m, k] @ the weight of `slot` ([k, n]), in float, rounded to `held`.
  void Product(const float* a, int64_t m, int64_t k, int slot, int64_t n, int scratch, std::vector<float>* out) {
    out->assign(static_cast<size_t>(m * n), 0.0f);
    const float* b;
    int64_t ldb = n;
    bool trans = false;
    if (nz[slot].used) {
      const TensorRef fractals = NzFractals(tensor(slot), nz[slot]);
      float* buffer = static_cast<float*>(Scratch(scratch, static_cast<size_t>(fractals.numel()) * sizeof(float)));
      GatherAs(fractals, ComputeType::kFloat32, buffer);
      b = buffer;
      ldb = nz[slot].x1 * nz[slot].x0;
      trans = nz[slot].transposed;
    } else {
      b = static_cast<const float*>(ContiguousAs(tensor(slot), ComputeType::kFloat32, scratch));
    }
    if (m > 0) {
      scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, trans ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                        static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(k), b,
                        static_cast<int>(ldb), 0.0f, out->data(), static_cast<int>(n));
    }
    RoundThrough(out, held);
  }

  // Row t of `rows` ([T, stride], `width` elements from `offset`) normalised by its rms, times gamma and alpha,
  // rounded.
  void RmsNormRows(std::vector<float>* rows, int64_t stride, int64_t offset, int64_t width, int gamma_slot,
                   double epsilon, float alpha, int scratch, std::vector<float>* out) {
    const float* gamma = static_cast<const float*>(ContiguousAs(tensor(gamma_slot), ComputeType::kFloat32, scratch));
    out->resize(static_cast<size_t>(tokens * width));
    ParallelFor(tokens, [&](int64_t t) {
      const float* row = rows->data() + t * stride + offset;
      const float rstd = RmsRstd(row, width, epsilon);
      for (int64_t j = 0; j < width; ++j) (*out)[static_cast<size_t>(t * width + j)] = row[j] * rstd * gamma[j] * alpha;
    });
    RoundThrough(out, held);
  }

  // Each of `count` rows of Dr elements (row r at src + r * stride, token r / per_token) rotated into dst.
  void Rope(const float* src, int64_t stride, int64_t count, int64_t per_token, const float* sin, const float* cos,
            float* dst) const {
    const Rotation r(kInterleaveHalf, kDr);
    for (int64_t row = 0; row < count; ++row) {
      const float* x = src + row * stride;
      const float* s = sin + (row / per_token) * kDr;
      const float* c = cos + (row / per_token) * kDr;
      float* y = dst + row * kDr;
      for (int64_t j = 0; j < kDr; ++j) {
        y[j] = x[r.a[j]] * c[j] + static_cast<float>(r.sign[j]) * x[r.b[j]] * s[j];
      }
    }
  }

  // Row `values` (width elements) into the cache of `slot` at slot `index`.
  void Store(int slot, int64_t index, const float* values) {
    const TensorRef& cache = tensor(slot);
    const int64_t width = cache.shape[3], block = index / block_size, within = index % block_size;
    TensorRef row = cache;
    const int64_t size = static_cast<int64_t>(DTypeSize(cache.dtype));
    if (pa_nz) {
      const int64_t c0 = 32 / size;
      row.first = cache.first + (block * block_size * width + within * c0) * size;
      row.shape = {width / c0, c0};
      row.strides = {block_size * c0, 1};
    } else {
      row.first = cache.first + (block * cache.strides[0] + within * cache.strides[1]) * size;
      row.shape = {width};
      row.strides = {cache.strides[3]};
    }
    ScatterFrom(values, ComputeType::kFloat32, row);
  }

  aclnnStatus Compute() override {
    if (tokens == 0) return ACLNN_SUCCESS;  // the pages: B, S or T 0, no output and the caches not updated
    // Skv 0 (BlockNum 0): the query computed, the caches not updated (the pages' constraint), nor indexed.
    const bool caches = slots > 0;
    const int64_t* index = caches ? IndexValues(tensor(kCacheIndex), 7) : nullptr;
    for (int64_t t = 0; caches && t < tokens; ++t) {
      if (index[t] < 0 || index[t] >= slots) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kCacheIndex).name + ": element " +
                                         std::to_string(t) + " is " + std::to_string(index[t]) + ", outside [0, " +
                                         std::to_string(slots) + ") (the page: 取值范围需在[0,BlockNum*BlockSize)内)");
      }
    }
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    std::vector<float> sin(static_cast<size_t>(tokens * kDr)), cos(sin.size());
    GatherAs(tensor(kSin), ComputeType::kFloat32, sin.data());
    GatherAs(tensor(kCos), ComputeType::kFloat32, cos.data());

    // The query: cQ, then [qC | qR'] per head, query per head and its rope.
    std::vector<float> down, c_q, q;
    Product(x, tokens, he, kWeightDq, kHcq, 1, &down);
    RmsNormRows(&down, kHcq, 0, kHcq, kGammaCq, epsilon_cq, alpha_q, 2, &c_q);
    Product(c_q.data(), tokens, kHcq, kWeightUqQr, heads * (kD + kDr), 1, &q);
    const float* uk = static_cast<const float*>(ContiguousAs(tensor(kWeightUk), ComputeType::kFloat32, 3));
    std::vector<float> query(static_cast<size_t>(tokens * heads * kHckv));
    for (int64_t n = 0; n < heads; ++n) {  // blas.cpp splits each product over the pool
      scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(tokens), static_cast<int>(kHckv),
                        static_cast<int>(kD), 1.0f, q.data() + n * (kD + kDr), static_cast<int>(heads * (kD + kDr)),
                        uk + n * kD * kHckv, static_cast<int>(kHckv), 0.0f, query.data() + n * kHckv,
                        static_cast<int>(heads * kHckv));
    }
    ScatterFrom(query.data(), ComputeType::kFloat32, tensor(kQuery));
    std::vector<float> query_rope(static_cast<size_t>(tokens * heads * kDr));
    Rope(q.data() + kD, kD + kDr, tokens * heads, heads, sin.data(), cos.data(), query_rope.data());
    ScatterFrom(query_rope.data(), ComputeType::kFloat32, tensor(kQueryRope));

    if (!caches) return ACLNN_SUCCESS;
    // The key: [cKV | kR'], cKV's norm and kR's rope into the caches.
    std::vector<float> kv, c_kv, k_rope(static_cast<size_t>(tokens * kDr));
    Product(x, tokens, he, kWeightDkvKr, kHckv + kDr, 1, &kv);
    RmsNormRows(&kv, kHckv + kDr, 0, kHckv, kGammaCkv, epsilon_ckv, alpha_kv, 2, &c_kv);
    Rope(kv.data() + kHckv, kHckv + kDr, tokens, 1, sin.data(), cos.data(), k_rope.data());
    for (int64_t t = 0; t < tokens; ++t) {
      Store(kKvCache, index[t], c_kv.data() + t * kHckv);
      Store(kKrCache, index[t], k_rope.data() + t * kDr);
    }
    return ACLNN_SUCCESS;
  }
};

bool PowerOfTwoHeads(int64_t n) { return n >= 1 && n <= 128 && (n & (n - 1)) == 0; }

// Whether a 4-d cache is row-major and dense: "PA_NZ" addresses its blocks' fractals from the first element.
bool Dense(const TensorDesc& t) {
  int64_t stride = 1;
  for (size_t d = t.view.size(); d-- > 0;) {
    if (t.view[d] != 1 && t.strides[d] != stride) return false;
    stride *= t.view[d];
  }
  return true;
}

}  // namespace

bool MlaPrologReadsPrivateLayout(const Call&, const FamilySpec& family, int param, const TensorDesc& t) {
  return t.format == ACL_FORMAT_FRACTAL_NZ &&
         (param == family.role(F::Role::kWeightDq) || param == family.role(F::Role::kWeightUqQr) ||
          param == family.role(F::Role::kWeightDkvKr));
}

aclnnStatus PlanMlaProlog(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const ParamRejecter reject(call, family);
  // The tensors a role names, in the work's slots.
  const int slot_role[kSlots] = {F::Role::kX, F::Role::kWeightDq, F::Role::kWeightUqQr, F::Role::kWeightUk,
                                 F::Role::kWeightDkvKr, F::Role::kGammaCq, F::Role::kGammaCkv, F::Role::kSin,
                                 F::Role::kCos, F::Role::kCacheIndex, F::Role::kKvCache, F::Role::kKrCache,
                                 F::Role::kQuery, F::Role::kQueryRope};
  const TensorDesc* t[kSlots];
  for (int s = 0; s < kSlots; ++s) {
    t[s] = RoleTensor(call, family, slot_role[s]);
    // V3's cacheIndexOptional: the page's cache modes ("PA_BSND", "PA_NZ") both index the cache.
    if (!t[s] && s == kCacheIndex) return reject(F::Role::kCacheIndex, "is null: the paged cache modes index by it");
    if (!t[s]) return Decline(call, work, "without its tensors");
  }
  // V3's reserved inputs and outputs (the page: 预留接口，传入空指针即可) and modes (传入0, tileSize 128).
  for (int role : {int(F::Role::kActualSeqLen), int(F::Role::kKNopeClipAlpha), int(F::Role::kQueryNorm),
                   int(F::Role::kDequantScaleQNorm)}) {
    if (RoleTensor(call, family, role)) return reject(role, "is reserved (must be null): its use is not modelled");
  }
  for (int role : {int(F::Role::kWeightQuantMode), int(F::Role::kKvQuantMode), int(F::Role::kQueryQuantMode),
                   int(F::Role::kCkvkrRepoMode), int(F::Role::kQuantScaleRepoMode), int(F::Role::kTileSize)}) {
    const int64_t fallback = role == F::Role::kTileSize ? 128 : 0;
    const int64_t value = RoleInt(call, family, role, fallback);
    if (value != fallback) {
      return reject(role, std::to_string(value) + " is not " + std::to_string(fallback) +
                              ": the quantised modes and tilings the page reserves are not modelled");
    }
  }
  for (int s = 0; s < kSlots; ++s) {
    if (s == kCacheIndex) continue;
    if (!ComputesInFloat32(t[s]->dtype)) {
      return reject(slot_role[s], std::string("dtype ") + DTypeName(t[s]->dtype) +
                                      ": the quantised scenarios (INT8 tensors) are not modelled");
    }
    if (s != kQueryRope && t[s]->dtype != t[kX]->dtype) {
      return reject(slot_role[s], std::string("dtype ") + DTypeName(t[s]->dtype) + " is not tokenX's " +
                                      DTypeName(t[kX]->dtype) + " (the non-quantised scenario's one dtype)");
    }
  }
  if (t[kCacheIndex]->dtype != ACL_INT64) {
    return reject(F::Role::kCacheIndex, std::string("dtype ") + DTypeName(t[kCacheIndex]->dtype) + " is not INT64");
  }
  const TensorDesc& x = *t[kX];
  if (x.view.size() != 2 && x.view.size() != 3) {
    return reject(F::Role::kX, "shape " + DimsText(x.view) + " is not (T, He) or (B, S, He)");
  }
  const Dims lead(x.view.begin(), x.view.end() - 1);
  const int64_t he = x.view.back();
  int64_t tokens = 1;
  for (int64_t d : lead) tokens *= d;
  if (he != 7168 && he != 7680) return reject(F::Role::kX, "He " + std::to_string(he) + " is not 7168 or 7680 (the page's He)");
  auto with = [&](Dims dims, std::initializer_list<int64_t> tail) {
    for (int64_t d : tail) dims.push_back(d);
    return dims;
  };
  const TensorDesc& uk = *t[kWeightUk];
  if (uk.view.size() != 3 || uk.view[1] != kD || uk.view[2] != kHckv || !PowerOfTwoHeads(uk.view[0])) {
    return reject(F::Role::kWeightUk, "shape " + DimsText(uk.view) + " is not (N, D 128, Hckv 512) with N one of 1, "
                                      "2, 4, ..., 128 (the page's sizes)");
  }
  const int64_t heads = uk.view[0];
  const TensorDesc& kv = *t[kKvCache];
  if (kv.view.size() != 4 || kv.view[2] != 1 || kv.view[3] != kHckv || (kv.view[1] != 16 && kv.view[1] != 128)) {
    return reject(F::Role::kKvCache, "shape " + DimsText(kv.view) + " is not (BlockNum, BlockSize 16 or 128, Nkv 1, "
                                     "Hckv 512) (the page's sizes)");
  }
  const Dims cache_rows{kv.view[0], kv.view[1], 1};
  struct Want {
    int slot;
    Dims shape;
    const char* what;
  };
  const Want wants[] = {
      {kWeightDq, {he, kHcq}, "(He, Hcq 1536)"},
      {kWeightUqQr, {kHcq, heads * (kD + kDr)}, "(Hcq 1536, N * (D + Dr)) with weightUk's N"},
      {kWeightDkvKr, {he, kHckv + kDr}, "(He, Hckv + Dr 576)"},
      {kGammaCq, {kHcq}, "(Hcq 1536)"},
      {kGammaCkv, {kHckv}, "(Hckv 512)"},
      {kSin, with(lead, {kDr}), "tokenX's (T) or (B, S) with Dr 64"},
      {kCos, with(lead, {kDr}), "tokenX's (T) or (B, S) with Dr 64"},
      {kCacheIndex, lead, "tokenX's (T) or (B, S)"},
      {kKrCache, with(cache_rows, {kDr}), "kvCacheRef's (BlockNum, BlockSize, Nkv) with Dr 64"},
      {kQuery, with(lead, {heads, kHckv}), "tokenX's (T) or (B, S) with (N, Hckv 512)"},
      {kQueryRope, with(lead, {heads, kDr}), "tokenX's (T) or (B, S) with (N, Dr 64)"},
  };
  for (const Want& w : wants) {
    if (t[w.slot]->view != w.shape) {
      return reject(slot_role[w.slot], "shape " + DimsText(t[w.slot]->view) + " is not " + w.what + ": " +
                                           DimsText(w.shape));
    }
  }
  std::string mode = RoleText(call, family, F::Role::kCacheMode);
  if (mode.empty()) mode = "PA_BSND";  // the page's advice when the caller specifies none
  if (mode != "PA_BSND" && mode != "PA_NZ") {
    return reject(F::Role::kCacheMode, "\"" + mode + "\" is not \"PA_BSND\" or \"PA_NZ\"");
  }
  const bool pa_nz = mode == "PA_NZ";
  if (pa_nz) {
    for (int s : {kKvCache, kKrCache}) {
      if (!Dense(*t[s])) return reject(slot_role[s], "\"PA_NZ\" reads a dense cache: strides " + DimsText(t[s]->strides));
    }
  }

  auto made = std::make_unique<MlaPrologWork>(call.spec.name);
  for (int s = 0; s < kSlots; ++s) made->tensor(s).Set(RoleName(call, family, slot_role[s]), *t[s]);
  for (int s : {kWeightDq, kWeightUqQr, kWeightDkvKr}) {
    if (t[s]->format != ACL_FORMAT_FRACTAL_NZ) continue;
    const std::string unread = ReadNz(*t[s], &made->tensor(s), &made->nz[s]);
    if (!unread.empty()) return reject(slot_role[s], "FRACTAL_NZ " + unread);
  }
  made->held = x.dtype;
  made->tokens = tokens;
  made->he = he;
  made->heads = heads;
  made->block_size = kv.view[1];
  made->slots = kv.view[0] * kv.view[1];
  made->pa_nz = pa_nz;
  made->epsilon_cq = RoleNumber(call, family, F::Role::kEpsilonCq, -1, 1e-5);
  made->epsilon_ckv = RoleNumber(call, family, F::Role::kEpsilonCkv, -1, 1e-5);
  made->alpha_q = static_cast<float>(RoleNumber(call, family, F::Role::kQcQrScale, -1, 1.0));
  made->alpha_kv = static_cast<float>(RoleNumber(call, family, F::Role::kKcScale, -1, 1.0));
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
