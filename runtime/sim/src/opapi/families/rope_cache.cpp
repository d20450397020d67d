// The rope_cache family (aclnnRopeWithSinCosCache, torch_npu.npu_mrope; a derived page from its README) as the
// README's formulas state it: queryIn [T, Hq * headSize] and keyIn [T, Hk * headSize] seen per token and head, the
// first rotaryDim elements of each head rotated by the row of cosSinCache [maxSeqLen, rotaryDim] at the token's
// position (cos its first half, sin its second), the rest of the head copied. Rope mode (positions [T]): one
// position per token; mrope mode (positions [3, T]): element j of the halves from positions[s, t] for the section s
// of mropeSection that holds j (the sections sum to rotaryDim / 2). isNeoxStyle: o1 = x1 cos - x2 sin, o2 = x2 cos +
// x1 sin over the halves x1 | x2 (rotate_half) or over the even and odd elements, interleaved back
// (rotate_interleaved). In float, each output rounded once to its input's dtype. Positions are device data: one
// outside [0, maxSeqLen) fails phase 2 naming positions (the README's "越界报错"). The README's constraints on
// headSize and rotaryDim (16 to 128, multiples of 32 for BFLOAT16/FLOAT16 and 16 for FLOAT, rotaryDim <= headSize)
// are 161002.
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = RopeCacheFamily;

enum Slot { kPositions, kQuery, kKey, kCache, kQueryOut, kKeyOut, kSlots };

class RopeCacheWork final : public FamilyWork {
 public:
  explicit RopeCacheWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t tokens = 0, head_size = 0, rotary = 0, max_seq = 0;
  bool neox = true, mrope = false;
  int64_t sections[3] = {0, 0, 0};

 private:
  // Rotates every head of the [tokens, heads * head_size] input in slot `in` into slot `out`.
  void Rotate(int in, int out, int scratch, const std::vector<float>& cos, const std::vector<float>& sin) {
    const int64_t width = tensor(in).shape[1], heads = width / head_size, half = rotary / 2;
    const float* x = static_cast<const float*>(ContiguousAs(tensor(in), ComputeType::kFloat32, scratch));
    std::vector<float> y(x, x + tokens * width);
    ParallelFor(tokens, [&](int64_t t) {
      const float* c = cos.data() + t * half;
      const float* s = sin.data() + t * half;
      for (int64_t h = 0; h < heads; ++h) {
        const float* head = x + t * width + h * head_size;
        float* o = y.data() + t * width + h * head_size;
        for (int64_t j = 0; j < half; ++j) {
          const int64_t first = neox ? j : 2 * j, second = neox ? j + half : 2 * j + 1;
          const float x1 = head[first], x2 = head[second];
          o[first] = x1 * c[j] - x2 * s[j];
          o[second] = x2 * c[j] + x1 * s[j];
        }
      }
    });
    ScatterFrom(y.data(), ComputeType::kFloat32, tensor(out));
  }

  aclnnStatus Compute() override {
    if (tokens == 0) return ACLNN_SUCCESS;
    const int64_t half = rotary / 2;
    const int64_t* positions = IndexValues(tensor(kPositions), 3);
    for (int64_t i = 0; i < tensor(kPositions).numel(); ++i) {
      if (positions[i] < 0 || positions[i] >= max_seq) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kPositions).name + ": element " +
                                         std::to_string(i) + " is " + std::to_string(positions[i]) +
                                         ", outside cosSinCache's " + std::to_string(max_seq) +
                                         " positions (the README: an out-of-range error)");
      }
    }
    const float* cache = static_cast<const float*>(ContiguousAs(tensor(kCache), ComputeType::kFloat32, 2));
    // cos and sin of every token, element j of the halves from its section's position in mrope mode.
    std::vector<float> cos(static_cast<size_t>(tokens * half)), sin(cos.size());
    for (int64_t t = 0; t < tokens; ++t) {
      int64_t section = 0, section_end = sections[0];
      for (int64_t j = 0; j < half; ++j) {
        while (mrope && j >= section_end && section < 2) section_end += sections[++section];
        const int64_t position = positions[(mrope ? section * tokens : 0) + t];
        cos[static_cast<size_t>(t * half + j)] = cache[position * rotary + j];
        sin[static_cast<size_t>(t * half + j)] = cache[position * rotary + half + j];
      }
    }
    Rotate(kQuery, kQueryOut, 0, cos, sin);
    Rotate(kKey, kKeyOut, 1, cos, sin);
    return ACLNN_SUCCESS;
  }
};

// The README's bound on headSize and rotaryDim: 16 to 128, a multiple of 32 (BFLOAT16, FLOAT16) or 16 (FLOAT).
bool InBounds(int64_t value, aclDataType dtype) {
  const int64_t multiple = dtype == ACL_FLOAT ? 16 : 32;
  return value >= 16 && value <= 128 && value % multiple == 0;
}

}  // namespace

aclnnStatus PlanRopeCache(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* positions = RoleTensor(call, family, F::Role::kPositions);
  const TensorDesc* query = RoleTensor(call, family, F::Role::kQuery);
  const TensorDesc* key = RoleTensor(call, family, F::Role::kKey);
  const TensorDesc* cache = RoleTensor(call, family, F::Role::kCache);
  const TensorDesc* query_out = RoleTensor(call, family, F::Role::kQueryOut);
  const TensorDesc* key_out = RoleTensor(call, family, F::Role::kKeyOut);
  if (!positions || !query || !key || !cache || !query_out || !key_out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  for (const auto& [role, t] : {std::pair<int, const TensorDesc*>{F::Role::kQuery, query}, {F::Role::kKey, key},
                                {F::Role::kCache, cache}}) {
    if (t->view.size() != 2) return reject(role, "shape " + DimsText(t->view) + " is not 2-d");
  }
  const int64_t tokens = query->view[0];
  const bool mrope = positions->view.size() == 2;
  if (!(positions->view.size() == 1 || (mrope && positions->view[0] == 3)) || positions->view.back() != tokens ||
      key->view[0] != tokens) {
    return reject(F::Role::kPositions, "shape " + DimsText(positions->view) + " is not [numTokens] or [3, numTokens] "
                                           "with queryIn's and keyIn's numTokens " + std::to_string(tokens) +
                                           (key->view[0] != tokens ? " (keyIn has " + std::to_string(key->view[0]) + ")" : ""));
  }
  const int64_t head_size = RoleInt(call, family, F::Role::kHeadSize, 0);
  if (!InBounds(head_size, query->dtype)) {
    return reject(F::Role::kHeadSize, std::to_string(head_size) + " is not within [16, 128] and a multiple of " +
                                          (query->dtype == ACL_FLOAT ? "16" : "32") + " for queryIn's " +
                                          DTypeName(query->dtype));
  }
  const int64_t rotary = cache->view[1];
  if (!InBounds(rotary, query->dtype) || rotary > head_size) {
    return reject(F::Role::kCache, "rotaryDim " + std::to_string(rotary) + " is not within [16, min(128, headSize " +
                                       std::to_string(head_size) + ")] and a multiple of " +
                                       (query->dtype == ACL_FLOAT ? "16" : "32"));
  }
  for (const auto& [role, t] : {std::pair<int, const TensorDesc*>{F::Role::kQuery, query}, {F::Role::kKey, key}}) {
    if (t->view[1] % head_size != 0) {
      return reject(role, "last dimension " + std::to_string(t->view[1]) + " is not heads * headSize " +
                              std::to_string(head_size));
    }
  }
  Dims sections;
  if (!RoleInts(call, family, F::Role::kSections, &sections) || sections.size() != 3) {
    return reject(F::Role::kSections, "is not 3 integers");
  }
  if (mrope && (sections[0] < 0 || sections[1] < 0 || sections[2] < 0 ||
                sections[0] + sections[1] + sections[2] != rotary / 2)) {
    return reject(F::Role::kSections, DimsText(sections) + " are not 3 non-negative sections summing to rotaryDim / 2 = " +
                                          std::to_string(rotary / 2) + " (mrope mode: positions [3, numTokens])");
  }
  for (const auto& [role, out, in] : {std::tuple<int, const TensorDesc*, const TensorDesc*>{F::Role::kQueryOut, query_out, query},
                                      {F::Role::kKeyOut, key_out, key}}) {
    if (out->dtype != in->dtype) {
      return reject(role, std::string("dtype ") + DTypeName(out->dtype) + " is not its input's " + DTypeName(in->dtype));
    }
  }
  auto made = std::make_unique<RopeCacheWork>(call.spec.name);
  made->tokens = tokens;
  made->head_size = head_size;
  made->rotary = rotary;
  made->max_seq = cache->view[0];
  made->neox = RoleBool(call, family, F::Role::kNeox, true);
  made->mrope = mrope;
  for (int s = 0; s < 3; ++s) made->sections[s] = sections[static_cast<size_t>(s)];
  made->tensor(kPositions).Set(RoleName(call, family, F::Role::kPositions), *positions);
  made->tensor(kQuery).Set(RoleName(call, family, F::Role::kQuery), *query);
  made->tensor(kKey).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kCache).Set(RoleName(call, family, F::Role::kCache), *cache);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kQueryOut, *query_out, query->view, "queryIn's shape", kQueryOut)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kKeyOut, *key_out, key->view, "keyIn's shape", kKeyOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
