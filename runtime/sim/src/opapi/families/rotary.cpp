// The rotary family: rotary position embedding (torch_npu.npu_rotary_mul) and its gradient.
//   rotary       y = A(x) * cos + B(x) * sin along the last dimension D of a 4-d x, cos and sin
//                broadcast to x; A and B move (and negate) elements within a row of D:
//                  mode 0 half:            A = x, B = (-x2, x1) of x's halves
//                  mode 1 interleave:      A = x, B pairs (-x[2i + 1], x[2i])
//                  mode 2 quarter:         A = x, B = (-x2, x1, -x4, x3) of x's quarters
//                  mode 3 interleave-half: A = (x_even, x_odd), B = (-x_odd, x_even)
//   rotary_grad  dx = A^T(dy * cos) + B^T(dy * sin); with x, dcos = dy * A(x) and dsin = dy * B(x)
//                summed over the dimensions cos and sin broadcast along (the pages' formulas)
//   interleave_rope  rotary in mode 3 (aclnnInterleaveRope), with its README's shapes: x [B, N, S, D]
//                with D 64, cos and sin [B, 1, S or 1, D]
//   apply_rotary query and key rotated in place by the same cos and sin (aclnnApplyRotaryPosEmb:
//                mode half, layout 1 (BSND) only; V2: rotaryMode "half", "interleave" or "quarter"
//                and layouts 1 to 3, cos and sin laid out as query and key, broadcasting to them);
//                D must be 128, as both pages say
// A and B are signed permutations of a row: a table of (source element, sign) per mode.
// FLOAT, FLOAT16 and BFLOAT16 compute in float; dcos and dsin accumulate in double. Phase 1 checks
// the pages' constraints: x 4-d, cos and sin one shape broadcasting to x's with its last dimension,
// D even (a multiple of 4 for quarter), a mode in 0..3 (561002 otherwise, as the pages' tables say).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/rotation.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = RotaryFamily;

enum Slot { kX, kCos, kSin, kDy, kOut, kDcos, kDsin, kKey, kSlots };

// `t` (cos, sin: checked to broadcast in phase 1) seen broadcast to `shape`.
TensorRef Broadcast(TensorRef t, const Dims& shape) {
  BroadcastRef(&t, shape);
  return t;
}

class RotaryWork final : public FamilyWork {
 public:
  RotaryWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int64_t mode = 0;
  bool with_x = true;  // rotary_grad: x given (dcos and dsin computed)
  Dims shape;          // x's (dy's, query's)
  Dims key_shape;      // apply_rotary: key's
  Dims table;          // cos's and sin's

 private:
  aclnnStatus Compute() override {
    if (op_ != F::Op::kApplyRotary) return Rotate(kX, kOut, shape);
    if (aclnnStatus s = Rotate(kX, kX, shape)) return s;
    return Rotate(kKey, kKey, key_shape);
  }

  // x's (the grad: dy's) slot rotated into out's slot; in place when they are one.
  aclnnStatus Rotate(int x_slot, int out_slot, const Dims& shape) {
    int64_t n = 1;
    for (int64_t e : shape) n *= e;
    if (n == 0) return ACLNN_SUCCESS;
    const int64_t d = shape.back(), rows = n / d;
    const Rotation r(mode, d);
    const float* cos = static_cast<const float*>(ContiguousAs(Broadcast(tensor(kCos), shape), type, 0));
    const float* sin = static_cast<const float*>(ContiguousAs(Broadcast(tensor(kSin), shape), type, 1));
    const float* x = with_x ? static_cast<const float*>(ContiguousAs(tensor(x_slot), type, 2)) : nullptr;
    float* y = static_cast<float*>(Scratch(3, static_cast<size_t>(n) * sizeof(float)));
    const bool grad = op_ == F::Op::kRotaryGrad;
    const float* dy = grad ? static_cast<const float*>(ContiguousAs(tensor(kDy), type, 4)) : nullptr;
    auto rows_of = [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t o = row * d;
        for (int64_t j = 0; j < d; ++j) {
          if (grad) {
            y[o + r.a[j]] = 0;
          } else {
            y[o + j] = x[o + r.a[j]] * cos[o + j] + static_cast<float>(r.sign[j]) * x[o + r.b[j]] * sin[o + j];
          }
        }
        if (!grad) continue;
        for (int64_t j = 0; j < d; ++j) y[o + r.a[j]] += dy[o + j] * cos[o + j];
        for (int64_t j = 0; j < d; ++j) y[o + r.b[j]] += static_cast<float>(r.sign[j]) * dy[o + j] * sin[o + j];
      }
    };
    const int64_t tasks = n < (1 << 15) ? 1 : std::min<int64_t>(rows, ParallelThreads() * 4);
    if (tasks <= 1) {
      rows_of(0, rows);
    } else {
      ParallelFor(tasks, [&](int64_t t) { rows_of(rows * t / tasks, rows * (t + 1) / tasks); });
    }
    ScatterFrom(y, type, tensor(out_slot));
    if (grad && with_x) TableGradients(x, dy, r);
    return ACLNN_SUCCESS;
  }

  // dcos and dsin: each element of x's shape added to its table element, in x's order.
  void TableGradients(const float* x, const float* dy, const Rotation& r) {
    int64_t cells = 1;
    for (int64_t e : table) cells *= e;
    std::vector<double> dcos(static_cast<size_t>(cells), 0.0), dsin(static_cast<size_t>(cells), 0.0);
    const int64_t d = shape.back();
    int64_t coord[4] = {0, 0, 0, 0};
    const int64_t rows = shape[0] * shape[1] * shape[2];
    for (int64_t row = 0; row < rows; ++row) {
      coord[0] = row / (shape[1] * shape[2]), coord[1] = (row / shape[2]) % shape[1], coord[2] = row % shape[2];
      int64_t at = 0;
      for (int k = 0; k < 3; ++k) at = at * table[k] + (table[k] == 1 ? 0 : coord[k]);
      at *= d;
      const int64_t o = row * d;
      for (int64_t j = 0; j < d; ++j) {
        dcos[at + j] += static_cast<double>(dy[o + j]) * x[o + r.a[j]];
        dsin[at + j] += static_cast<double>(dy[o + j]) * r.sign[j] * x[o + r.b[j]];
      }
    }
    std::vector<float> values(static_cast<size_t>(cells));
    std::transform(dcos.begin(), dcos.end(), values.begin(), [](double v) { return static_cast<float>(v); });
    ScatterFrom(values.data(), type, tensor(kDcos));
    std::transform(dsin.begin(), dsin.end(), values.begin(), [](double v) { return static_cast<float>(v); });
    ScatterFrom(values.data(), type, tensor(kDsin));
  }

  int op_;
};

}  // namespace

namespace {

// aclnnApplyRotaryPosEmb(V2): query and key in place.
aclnnStatus PlanApply(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* query = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* key = RoleTensor(call, family, F::Role::kKey);
  const TensorDesc* cos = RoleTensor(call, family, F::Role::kCos);
  const TensorDesc* sin = RoleTensor(call, family, F::Role::kSin);
  if (!query || !key || !cos || !sin) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(query->dtype)) return DeclineDtype(call, work, query->dtype);
  const ParamRejecter reject(call, family);
  const int index = family.roles[F::Role::kRotaryMode];
  const bool v2 = index >= 0;
  const char* text = v2 && call.spec.params[index].kind == ParamKind::kString
                         ? static_cast<const char*>(call.args[index].pointer)
                         : nullptr;
  const std::string mode = text ? text : "half";
  RotaryWork* made = new RotaryWork(call.spec.name, family.op);
  std::unique_ptr<RotaryWork> owned(made);
  made->type = ComputeType::kFloat32;
  if (mode == "half" || mode == "interleave" || mode == "quarter") {
    made->mode = mode == "half" ? 0 : mode == "interleave" ? 1 : 2;
  } else {
    return reject(F::Role::kRotaryMode, "\"" + mode + "\" is not one of \"half\", \"interleave\", \"quarter\"");
  }
  const int64_t layout = RoleInt(call, family, F::Role::kLayout, 1);
  if (layout < 1 || layout > (v2 ? 3 : 1)) {
    return reject(F::Role::kLayout, std::to_string(layout) + (v2 ? " is not 1 (BSND), 2 (SBND) or 3 (BNSD)"
                                                                 : " is not 1 (BSND), the one layout the page supports"));
  }
  for (int role : {int(F::Role::kX), int(F::Role::kKey), int(F::Role::kCos), int(F::Role::kSin)}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (t->view.size() != 4 || t->view[3] != 128) {
      return reject(role, "shape " + DimsText(t->view) + " is not 4-d with a last dimension of 128");
    }
  }
  if (sin->view != cos->view) {
    return reject(F::Role::kSin, "shape " + DimsText(sin->view) + " is not cos's " + DimsText(cos->view));
  }
  for (const TensorDesc* t : {query, key}) {
    for (size_t k = 0; k < 3; ++k) {
      if (cos->view[k] != t->view[k] && cos->view[k] != 1) {
        return reject(F::Role::kCos, "shape " + DimsText(cos->view) + " does not broadcast to " + DimsText(t->view));
      }
    }
  }
  made->shape = query->view;
  made->key_shape = key->view;
  made->table = cos->view;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *query);
  made->tensor(kKey).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kCos).Set(RoleName(call, family, F::Role::kCos), *cos);
  made->tensor(kSin).Set(RoleName(call, family, F::Role::kSin), *sin);
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanRotary(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  if (op == F::Op::kApplyRotary) return PlanApply(call, family, work);
  const bool grad = op == F::Op::kRotaryGrad;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* cos = RoleTensor(call, family, F::Role::kCos);
  const TensorDesc* sin = RoleTensor(call, family, F::Role::kSin);
  const TensorDesc* dy = RoleTensor(call, family, F::Role::kDy);
  const TensorDesc* out = RoleTensor(call, family, grad ? F::Role::kDx : F::Role::kOut);
  const TensorDesc* dcos = RoleTensor(call, family, F::Role::kDcos);
  const TensorDesc* dsin = RoleTensor(call, family, F::Role::kDsin);
  const TensorDesc* source = grad ? dy : x;
  if (!source || !cos || !sin || !out || (grad && x && (!dcos || !dsin))) {
    return Decline(call, work, "without its tensors");
  }
  if (!ComputesInFloat32(source->dtype)) return DeclineDtype(call, work, source->dtype);
  const ParamRejecter reject(call, family, ACLNN_ERR_INNER_TILING_ERROR);
  const int source_role = grad ? F::Role::kDy : F::Role::kX;
  RotaryWork* made = new RotaryWork(call.spec.name, op);
  std::unique_ptr<RotaryWork> owned(made);
  made->type = ComputeType::kFloat32;
  const bool interleave_rope = op == F::Op::kInterleaveRope;
  made->mode = interleave_rope ? 3 : RoleInt(call, family, F::Role::kMode, 0);
  if (made->mode < 0 || made->mode > 3) {
    return reject(F::Role::kMode, std::to_string(made->mode) + " is not a mode (0 half, 1 interleave, 2 quarter, "
                                                               "3 interleave-half)");
  }
  const Dims& shape = source->view;
  if (shape.size() != 4) return reject(source_role, "shape " + DimsText(shape) + " is not 4-d [B, S, N, D]");
  const int64_t d = shape[3];
  if (d % (made->mode == 2 ? 4 : 2) != 0) {
    return reject(source_role, "its last dimension " + std::to_string(d) + " is not a multiple of " +
                                   (made->mode == 2 ? "4 (quarter mode)" : "2"));
  }
  if (sin->view != cos->view) {
    return reject(F::Role::kSin, "shape " + DimsText(sin->view) + " is not cos's " + DimsText(cos->view));
  }
  bool broadcasts = cos->view.size() == 4 && cos->view[3] == d;
  for (size_t k = 0; broadcasts && k < 3; ++k) broadcasts = cos->view[k] == shape[k] || cos->view[k] == 1;
  if (!broadcasts) {
    return reject(F::Role::kCos, "shape " + DimsText(cos->view) + " does not broadcast to " + DimsText(shape) +
                                     " with the same last dimension");
  }
  if (interleave_rope) {
    // The README: D equal to 64, cos and sin of N 1 and of x's S or 1 (and x's B).
    if (d != 64) return reject(F::Role::kX, "its last dimension " + std::to_string(d) + " is not 64");
    if (cos->view[0] != shape[0] || cos->view[1] != 1) {
      return reject(F::Role::kCos, "shape " + DimsText(cos->view) + " is not [B, 1, S or 1, D] of x's B");
    }
  }
  made->shape = shape;
  made->table = cos->view;
  made->with_x = x != nullptr;
  made->tensor(kCos).Set(RoleName(call, family, F::Role::kCos), *cos);
  made->tensor(kSin).Set(RoleName(call, family, F::Role::kSin), *sin);
  if (x) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kX, x, shape, "dy's shape")) return s;
    made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  }
  if (grad) {
    made->tensor(kDy).Set(RoleName(call, family, F::Role::kDy), *dy);
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kDx, *out, shape, "dy's shape", kOut)) return s;
    if (x) {
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kDcos, *dcos, cos->view, "cos's shape", kDcos)) {
        return s;
      }
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kDsin, *dsin, cos->view, "cos's shape", kDsin)) {
        return s;
      }
    }
  } else if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "x's shape", kOut)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
