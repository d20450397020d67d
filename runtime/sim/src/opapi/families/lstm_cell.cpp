// The lstm_cell family: one step of an LSTM cell after its two matrix products,
// aclnnThnnFusedLstmCell and aclnnThnnFusedLstmCellBackward (torch.lstm_cell and nn.LSTMCell reach
// them through op-plugin's _thnn_fused_lstm_cell and its backward), as aten's fused kernels compute.
//   lstm_cell           inputGates, hiddenGates [B, 4H], cx [B, H], the two biases [4H] (both or
//                       neither). gates = inputGates + hiddenGates + b_ih + b_hh in blocks i, f, g, o
//                       (aten's order, which op-plugin passes unchanged); storage [B, 4H] keeps
//                       sigmoid(i), sigmoid(f), tanh(g), sigmoid(o) in those blocks;
//                       cy = f * cx + i * g, hy = o * tanh(cy).
//   lstm_cell_backward  from gradHy and gradC (absent: 0), cx, cy and the forward's storage: with
//                       t = tanh(cy) and dc = gradHy * o * (1 - t^2) + gradC, the gates'
//                       pre-activation gradients di = dc * g * i (1 - i), df = dc * cx * f (1 - f),
//                       dg = dc * i * (1 - g^2), do = gradHy * t * o (1 - o) into gradGatesOut, gradCxOut
//                       = dc * f, and gradBiasOut their sum over the batch (written whatever hasBias:
//                       op-plugin allocates it always).
// FLOAT and FLOAT16 (the pages' two), computed in float and rounded once; sums in double; rows
// spread over the threads.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = LstmCellFamily;

// Forward: inputGates, hiddenGates, cx, the biases; hy, cy, storage. Backward: gradHy, gradC, cx, cy,
// storage; gradGates, gradCx, gradBias. A slot the call leaves NULL keeps no dtype.
enum Slot { kIn0, kIn1, kIn2, kIn3, kIn4, kOut0, kOut1, kOut2, kSlots };

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

class LstmCellWork final : public FamilyWork {
 public:
  explicit LstmCellWork(const char* api) : FamilyWork(api, kSlots) {}

  bool backward = false;
  int64_t batch = 0, hidden = 0;

 private:
  bool Has(int slot) const { return tensor(slot).dtype != ACL_DT_UNDEFINED; }
  const float* Floats(int slot) const {
    return Has(slot) && batch * hidden != 0 ? static_cast<const float*>(ContiguousAs(tensor(slot), ComputeType::kFloat32, slot))
                                       : nullptr;
  }

  aclnnStatus Compute() override { return backward ? Backward() : Forward(); }

  aclnnStatus Forward() {
    const float *input_gates = Floats(kIn0), *hidden_gates = Floats(kIn1), *cx = Floats(kIn2);
    const float *input_bias = Floats(kIn3), *hidden_bias = Floats(kIn4);
    const int64_t width = 4 * hidden;
    std::vector<float> hy(static_cast<size_t>(batch * hidden)), cy(hy.size()), storage(static_cast<size_t>(batch * width));
    ParallelFor(batch, [&](int64_t b) {
      for (int64_t h = 0; h < hidden; ++h) {
        float gate[4];
        for (int64_t k = 0; k < 4; ++k) {
          const int64_t col = k * hidden + h;
          float v = input_gates[b * width + col] + hidden_gates[b * width + col];
          if (input_bias) v += input_bias[col] + hidden_bias[col];
          gate[k] = k == 2 ? std::tanh(v) : Sigmoid(v);
          storage[static_cast<size_t>(b * width + col)] = gate[k];
        }
        const size_t at = static_cast<size_t>(b * hidden + h);
        cy[at] = gate[1] * cx[at] + gate[0] * gate[2];
        hy[at] = gate[3] * std::tanh(cy[at]);
      }
    });
    ScatterFrom(hy.data(), ComputeType::kFloat32, tensor(kOut0));
    ScatterFrom(cy.data(), ComputeType::kFloat32, tensor(kOut1));
    ScatterFrom(storage.data(), ComputeType::kFloat32, tensor(kOut2));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Backward() {
    const float *grad_hy = Floats(kIn0), *grad_c = Floats(kIn1), *cx = Floats(kIn2), *cy = Floats(kIn3);
    const float* storage = Floats(kIn4);
    const int64_t width = 4 * hidden;
    std::vector<float> grad_gates(static_cast<size_t>(batch * width)), grad_cx(static_cast<size_t>(batch * hidden));
    ParallelFor(batch, [&](int64_t b) {
      for (int64_t h = 0; h < hidden; ++h) {
        const size_t at = static_cast<size_t>(b * hidden + h);
        const float* gate = storage + b * width + h;  // gate[k * hidden]: i, f, g, o
        const float i = gate[0], f = gate[hidden], g = gate[2 * hidden], o = gate[3 * hidden];
        const float dh = grad_hy ? grad_hy[at] : 0.0f;
        const float t = std::tanh(cy[at]);
        const float dc = dh * o * (1.0f - t * t) + (grad_c ? grad_c[at] : 0.0f);
        float* out = grad_gates.data() + b * width + h;
        out[0] = dc * g * i * (1.0f - i);
        out[hidden] = dc * cx[at] * f * (1.0f - f);
        out[2 * hidden] = dc * i * (1.0f - g * g);
        out[3 * hidden] = dh * t * o * (1.0f - o);
        grad_cx[at] = dc * f;
      }
    });
    std::vector<float> grad_bias(static_cast<size_t>(width));
    ParallelFor(width, [&](int64_t col) {
      double sum = 0;
      for (int64_t b = 0; b < batch; ++b) sum += grad_gates[static_cast<size_t>(b * width + col)];
      grad_bias[static_cast<size_t>(col)] = static_cast<float>(sum);
    });
    ScatterFrom(grad_gates.data(), ComputeType::kFloat32, tensor(kOut0));
    ScatterFrom(grad_cx.data(), ComputeType::kFloat32, tensor(kOut1));
    ScatterFrom(grad_bias.data(), ComputeType::kFloat32, tensor(kOut2));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanLstmCell(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool backward = family.op == F::Op::kLstmCellBackward;
  const TensorDesc* cx = RoleTensor(call, family, F::Role::kCx);
  if (!cx) return Decline(call, work, "without cx");
  if (cx->view.size() != 2) {
    return RejectInvalid(call, family, F::Role::kCx, "shape " + DimsText(cx->view) + " is not [batch, hidden_size]");
  }
  const int64_t batch = cx->view[0], hidden = cx->view[1];
  const Dims state{batch, hidden}, gates{batch, 4 * hidden}, bias{4 * hidden};
  // The inputs in slot order, each with the shape it must have; and the outputs.
  struct Part {
    int role;
    Dims shape;
    const char* what;
  };
  const Part in_fwd[] = {{F::Role::kInputGates, gates, "[batch, 4 * hidden_size]"},
                         {F::Role::kHiddenGates, gates, "[batch, 4 * hidden_size]"},
                         {F::Role::kCx, state, "cx's shape"},
                         {F::Role::kInputBias, bias, "[4 * hidden_size]"},
                         {F::Role::kHiddenBias, bias, "[4 * hidden_size]"}};
  const Part in_bwd[] = {{F::Role::kGradHy, state, "cx's shape"},
                         {F::Role::kGradCy, state, "cx's shape"},
                         {F::Role::kCx, state, "cx's shape"},
                         {F::Role::kCy, state, "cx's shape"},
                         {F::Role::kStorage, gates, "[batch, 4 * hidden_size]"}};
  const Part out_fwd[] = {{F::Role::kHy, state, "cx's shape"},
                          {F::Role::kCy, state, "cx's shape"},
                          {F::Role::kStorage, gates, "[batch, 4 * hidden_size]"}};
  const Part out_bwd[] = {{F::Role::kGradGates, gates, "[batch, 4 * hidden_size]"},
                          {F::Role::kGradCx, state, "cx's shape"},
                          {F::Role::kGradBias, bias, "[4 * hidden_size]"}};
  std::unique_ptr<LstmCellWork> made(new LstmCellWork(call.spec.name));
  made->backward = backward;
  made->batch = batch;
  made->hidden = hidden;
  const Part* inputs = backward ? in_bwd : in_fwd;
  for (int slot = kIn0; slot <= kIn4; ++slot) {
    const Part& part = inputs[slot - kIn0];
    const TensorDesc* t = RoleTensor(call, family, part.role);
    const bool optional = backward ? slot <= kIn1 : slot >= kIn3;
    if (!t && optional) continue;
    if (!t) return Decline(call, work, std::string("without ") + RoleName(call, family, part.role));
    if (!ComputesInFloat32(t->dtype) || t->dtype == ACL_BF16) {
      return Decline(call, work, std::string("for dtype ") + DTypeName(t->dtype) + " of " + RoleName(call, family, part.role));
    }
    if (aclnnStatus s = CheckShape(call, family, part.role, t, part.shape, part.what)) return s;
    made->tensor(slot).Set(RoleName(call, family, part.role), *t);
  }
  if (!backward && (made->tensor(kIn3).dtype == ACL_DT_UNDEFINED) != (made->tensor(kIn4).dtype == ACL_DT_UNDEFINED)) {
    return RejectInvalid(call, family, F::Role::kHiddenBias,
                         "must be given exactly when inputBiasOptional is (the page)");
  }
  const Part* outputs = backward ? out_bwd : out_fwd;
  for (int slot = kOut0; slot <= kOut2; ++slot) {
    const Part& part = outputs[slot - kOut0];
    const TensorDesc* t = RoleTensor(call, family, part.role);
    if (!t) return Decline(call, work, std::string("without ") + RoleName(call, family, part.role));
    if (aclnnStatus s = made->KeepOutput(call, family, part.role, *t, part.shape, part.what, slot)) return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
