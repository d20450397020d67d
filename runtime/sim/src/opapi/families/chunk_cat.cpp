// The chunk_cat family: aclnnChunkCat (torch._chunk_cat, FSDP2's gradient packing, reaches it
// through op-plugin for contiguous FLOAT, FLOAT16 and BFLOAT16 lists along dim 0), as aten's
// _chunk_cat.
//   chunk_cat  each tensor t of the list, [S, ...] with R elements per row along dim 0, is cut into
//              numChunks chunks of ceil(S / numChunks) rows (zero rows padding the last ones);
//              out [numChunks, sum over t of ceil(S / numChunks) * R] holds in row c the chunks c
//              of the tensors one after the other, converted to out's dtype
// The page supports dim 0 only, and out's dtype must be as wide as the list's or a whole multiple
// of it ("数据类型所占字节数需要是输入数据类型所占字节数的非0整数倍"): other values are refused by
// name. Values pass through float (exact for the three dtypes).
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using F = ChunkCatFamily;

class ChunkCatWork final : public FamilyWork {
 public:
  ChunkCatWork(const char* api, int inputs) : FamilyWork(api, inputs + 1), inputs_(inputs) {}

  int64_t chunks = 1, width = 0;  // out's columns

 private:
  aclnnStatus Compute() override {
    std::vector<float> out(static_cast<size_t>(chunks * width), 0.0f);
    int64_t column = 0;
    for (int k = 0; k < inputs_; ++k) {
      const TensorRef& t = tensor(k);
      const int64_t count = t.numel();
      const int64_t rows = t.shape.empty() ? 1 : t.shape[0];
      const int64_t per_row = rows ? count / rows : 0;
      const int64_t chunk = (rows + chunks - 1) / chunks * per_row;  // elements of one chunk
      std::vector<float> values(static_cast<size_t>(count));
      if (count) GatherAs(t, ComputeType::kFloat32, values.data());
      for (int64_t c = 0; c < chunks; ++c) {
        for (int64_t j = 0; j < chunk && c * chunk + j < count; ++j) {
          out[static_cast<size_t>(c * width + column + j)] = values[static_cast<size_t>(c * chunk + j)];
        }
      }
      column += chunk;
    }
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(inputs_));
    return ACLNN_SUCCESS;
  }

  int inputs_;
};

}  // namespace

aclnnStatus PlanChunkCat(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const std::vector<TensorDesc>* list = RoleTensorList(call, family, F::Role::kTensors);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!list || !out) return Decline(call, work, "without its tensor list or output");
  const ParamRejecter reject(call, family);
  if (list->empty()) return reject(F::Role::kTensors, "is empty");
  for (const TensorDesc& t : *list) {
    if (!ComputesInFloat32(t.dtype)) return DeclineDtype(call, work, t.dtype);
  }
  const int64_t dim = RoleInt(call, family, F::Role::kDim, 0);
  if (dim != 0) return reject(F::Role::kDim, std::to_string(dim) + " is not 0, the one dimension the page supports");
  const int64_t chunks = RoleInt(call, family, F::Role::kNumChunks, 1);
  if (chunks < 1) return reject(F::Role::kNumChunks, std::to_string(chunks) + " is not positive");
  const aclDataType in = list->front().dtype;
  const size_t in_size = DTypeSize(in), out_size = DTypeSize(out->dtype);
  if (out_size < in_size || out_size % in_size != 0) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is narrower than " +
                                     DTypeName(in) + " or no whole multiple of its width");
  }
  int64_t width = 0;
  for (size_t k = 0; k < list->size(); ++k) {
    const TensorDesc& t = (*list)[k];
    if (t.dtype != in) {
      return reject(F::Role::kTensors, "member " + std::to_string(k) + ": dtype " + DTypeName(t.dtype) +
                                           " is not the first member's " + DTypeName(in));
    }
    if (t.view.empty()) return reject(F::Role::kTensors, "member " + std::to_string(k) + " is zero-dimensional");
    const int64_t rows = t.view[0];
    int64_t per_row = 1;
    for (size_t d = 1; d < t.view.size(); ++d) per_row *= t.view[d];
    width += (rows + chunks - 1) / chunks * per_row;
  }
  const int inputs = static_cast<int>(list->size());
  ChunkCatWork* made = new ChunkCatWork(call.spec.name, inputs);
  std::unique_ptr<ChunkCatWork> owned(made);
  made->chunks = chunks;
  made->width = width;
  for (int k = 0; k < inputs; ++k) made->tensor(k).Set(RoleName(call, family, F::Role::kTensors), (*list)[k]);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, Dims{chunks, width},
                                       "[numChunks, the chunks' elements]", inputs)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
