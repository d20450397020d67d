// The rnn family: aclnnLSTM and aclnnGRU (torch.nn.LSTM and torch.nn.GRU through op-plugin's
// _lstm_npu and _gru_npu) and their backwards aclnnLstmBackward and aclnnGRUBackward (the autograd
// backwards _lstm_npu_backward and _gru_npu_backward), as aten's lstm and gru compute them.
//   lstm, gru      for each layer l and direction d (unit u = l * D + d, the lists' and hy's order:
//                  directions first, then layers) over the steps (the reverse direction from the last;
//                  a layer above the first reads the one below's output, both directions' h side by
//                  side), with the weights' row blocks in aten's order (op-plugin passes nn.LSTM's and
//                  nn.GRU's parameters as they are):
//                  LSTM: gates = x_t @ W_ih^T + b_ih + h @ W_hh^T + b_hh in blocks i, f, g, o; i, f, o
//                  sigmoids, j = tanh(g); c = f * c + i * j; h = o * tanh(c). iOut, jOut, fOut, oOut,
//                  hOut, cOut, tanhCOut keep each step's values per unit.
//                  GRU: gi = x_t @ W_ih^T + b_ih, hn-side gh = h @ W_hh^T + b_hh, in blocks r, z, n;
//                  r, z sigmoids of gi + gh, n = tanh(gi_n + r * gh_n), h = (1 - z) * n + z * h. rOut,
//                  zOut, nOut, hnOut (gh_n), hOut keep each step's values per unit.
//                  output holds the last layer's h at each step, hy (and cy) each unit's last state; a
//                  list of saved values may be empty; with train false the lists are not written (the
//                  pages: no value when not training; op-plugin passes empty lists or placeholders).
//   *_backward     backpropagation through time from the forward's saved lists (not recomputed from
//                  the parameters): dy is the last layer's output gradient, dh (and dc) each unit's
//                  last-state gradient; dxOut, dhPrevOut (and dcPrevOut) and dparamsOut the results
//                  (an LSTM's two biases' gradients are both the gates' sum).
// Products on the BLAS (OpenBLAS sgemm), the rest in float; FLOAT16 rounded once at the end.
// Not modelled, refused by name with 561003: variable-length sequences (batchSizes), dropout
// between layers while training, outputMask asking for fewer than every gradient, dtypes other
// than FLOAT and FLOAT16 (the pages' two).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <cblas.h>

#include "common/dtypes.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = RnnFamily;

// The saved lists, in the forward's output order: an LSTM's i, j (g), f, o, h, c, tanh(c); a GRU's r,
// z, n, hn, h. Both keep h fifth.
constexpr int kMaxSaved = 7;
constexpr int kSavedH = 4;
constexpr int kLstmSaved[] = {F::Role::kI, F::Role::kJ, F::Role::kF, F::Role::kO, F::Role::kH, F::Role::kC, F::Role::kTanhC};
constexpr int kGruSaved[] = {F::Role::kR, F::Role::kZ, F::Role::kN, F::Role::kHn, F::Role::kH};
enum LstmSaved { kI, kJ, kF, kO, kLstmH, kC, kTanhC };
enum GruSaved { kR, kZ, kN, kHn, kGruH };

// c = a(^T) @ b(^T) + beta * c, row-major.
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float beta, float* c) {
  if (m == 0 || n == 0) return;
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                    static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(ta ? m : k), b,
                    static_cast<int>(tb ? k : n), beta, c, static_cast<int>(n));
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// The network's dimensions, read once from the input and the parameters.
struct Geometry {
  bool lstm = true;
  int64_t steps = 0, batch = 0, input_size = 0, hidden = 0, layers = 1, directions = 1;
  bool bias = false, batch_first = false;

  int64_t gates() const { return lstm ? 4 : 3; }
  int64_t width() const { return gates() * hidden; }  // a weight's rows
  int saved() const { return lstm ? 7 : 5; }
  const int* saved_roles() const { return lstm ? kLstmSaved : kGruSaved; }
  int64_t units() const { return layers * directions; }
  int64_t per_unit() const { return bias ? 4 : 2; }
  int64_t layer_input(int64_t layer) const { return layer == 0 ? input_size : hidden * directions; }
  int64_t state() const { return batch * hidden; }       // one step of one unit
  int64_t sequence() const { return steps * state(); }  // every step of one unit
  Dims unit_shape() const { return Dims{steps, batch, hidden}; }
  Dims states_shape() const { return Dims{units(), batch, hidden}; }
  Dims sequence_shape(int64_t features) const {
    return batch_first ? Dims{batch, steps, features} : Dims{steps, batch, features};
  }
  // The step a walk's s-th step is at (the reverse direction starts from the last).
  int64_t step(int64_t direction, int64_t s) const { return direction ? steps - 1 - s : s; }
};

std::vector<float> Load(const TensorRef& t) {
  std::vector<float> values(static_cast<size_t>(t.numel()));
  if (!values.empty()) GatherAs(t, ComputeType::kFloat32, values.data());
  return values;
}

void Store(const std::vector<float>& values, const TensorRef& t) {
  if (!values.empty()) ScatterFrom(values.data(), ComputeType::kFloat32, t);
}

// What every work keeps: the slots of the input, hx's members (h, and an LSTM's c), the parameters
// and the saved lists (-1 for a list the caller passed empty), the states' and outputs' slots.
class RnnWork : public FamilyWork {
 public:
  RnnWork(const char* api, int slots) : FamilyWork(api, slots) {}

  Geometry g;
  int params_at = 0, hx_at = -1, saved_at[kMaxSaved] = {-1, -1, -1, -1, -1, -1, -1};
  bool hx_per_unit = false;  // hx a list of one [B, H] state per unit (aclnnGRUBackward's example)
  int sequence_at = 0, state_at = 0, cell_at = -1;  // output, hy, cy; dxOut, dhPrevOut, dcPrevOut
  int dy_at = 0, dh_at = 0, dc_at = -1, dparams_at = 0;

 protected:
  // A tensor of [B, T, ...] seen as [T, B, ...] with batchFirst.
  TensorRef Sequence(int slot) const {
    static const int64_t kSwap[3] = {1, 0, 2};
    return g.batch_first ? tensor(slot).Permuted(kSwap) : tensor(slot);
  }
  std::vector<float> Param(int64_t unit, int which) const { return Load(tensor(params_at + unit * g.per_unit() + which)); }
  // Bias `which` (2: b_ih, 3: b_hh) of `unit`, zeros without biases.
  std::vector<float> Bias(int64_t unit, int which) const {
    return g.bias ? Param(unit, which) : std::vector<float>(static_cast<size_t>(g.width()), 0.0f);
  }
  // hx's member (0: h, 1: c) of `unit`, zeros without hx.
  std::vector<float> Initial(int member, int64_t unit) const {
    std::vector<float> out(static_cast<size_t>(g.state()), 0.0f);
    if (hx_at < 0) return out;
    if (hx_per_unit) return Load(tensor(hx_at + static_cast<int>(unit)));
    const std::vector<float> all = Load(tensor(hx_at + member));
    std::copy(all.begin() + unit * g.state(), all.begin() + (unit + 1) * g.state(), out.begin());
    return out;
  }
  // Unit `unit`'s states (h, c) of every unit's [B, H] rows into `all` ([units, B, H]).
  void KeepState(const std::vector<float>& state, int64_t unit, std::vector<float>* all) const {
    std::copy(state.begin(), state.end(), all->begin() + unit * g.state());
  }
  std::vector<float> UnitRows(const std::vector<float>& all, int64_t unit) const {
    return std::vector<float>(all.begin() + unit * g.state(), all.begin() + (unit + 1) * g.state());
  }
};

// rows [rows, width] += bias, row by row.
void AddRows(const std::vector<float>& bias, int64_t rows, float* out) {
  const int64_t width = static_cast<int64_t>(bias.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < width; ++k) out[r * width + k] += bias[static_cast<size_t>(k)];
  }
}

class ForwardWork final : public RnnWork {
 public:
  using RnnWork::RnnWork;

 private:
  // One step of an LSTM unit: `gates` (x_t @ W_ih^T + both biases) gets h @ W_hh^T, then the cell.
  void LstmStep(int64_t t, float* gates, const std::vector<float>& w_hh, std::vector<float>* h, std::vector<float>* c,
                std::vector<std::vector<float>>* saved) const {
    const int64_t B = g.batch, H = g.hidden, width = g.width();
    Gemm(false, true, B, width, H, h->data(), w_hh.data(), 1.0f, gates);
    for (int64_t b = 0; b < B; ++b) {
      const float* row = gates + b * width;
      for (int64_t k = 0; k < H; ++k) {
        const float i = Sigmoid(row[k]), f = Sigmoid(row[H + k]), j = std::tanh(row[2 * H + k]),
                    o = Sigmoid(row[3 * H + k]);
        const size_t at = static_cast<size_t>(b * H + k), kept = static_cast<size_t>(t * B * H) + at;
        (*c)[at] = f * (*c)[at] + i * j;
        const float tanh_c = std::tanh((*c)[at]);
        (*h)[at] = o * tanh_c;
        const float values[] = {i, j, f, o, (*h)[at], (*c)[at], tanh_c};
        for (int v = 0; v < g.saved(); ++v) (*saved)[static_cast<size_t>(v)][kept] = values[v];
      }
    }
  }

  // One step of a GRU unit: `gi` (x_t @ W_ih^T + b_ih) with gh = h @ W_hh^T + b_hh.
  void GruStep(int64_t t, const float* gi, const std::vector<float>& w_hh, const std::vector<float>& b_hh,
               std::vector<float>* h, std::vector<std::vector<float>>* saved) const {
    const int64_t B = g.batch, H = g.hidden, width = g.width();
    std::vector<float> gh(static_cast<size_t>(B * width));
    Gemm(false, true, B, width, H, h->data(), w_hh.data(), 0.0f, gh.data());
    AddRows(b_hh, B, gh.data());
    for (int64_t b = 0; b < B; ++b) {
      const float* x_row = gi + b * width;
      const float* h_row = gh.data() + b * width;
      for (int64_t k = 0; k < H; ++k) {
        const float r = Sigmoid(x_row[k] + h_row[k]), z = Sigmoid(x_row[H + k] + h_row[H + k]);
        const float hn = h_row[2 * H + k], n = std::tanh(x_row[2 * H + k] + r * hn);
        const size_t at = static_cast<size_t>(b * H + k), kept = static_cast<size_t>(t * B * H) + at;
        (*h)[at] = (1.0f - z) * n + z * (*h)[at];
        const float values[] = {r, z, n, hn, (*h)[at]};
        for (int v = 0; v < g.saved(); ++v) (*saved)[static_cast<size_t>(v)][kept] = values[v];
      }
    }
  }

  aclnnStatus Compute() override {
    const int64_t T = g.steps, B = g.batch, H = g.hidden, D = g.directions, width = g.width();
    std::vector<float> x = Load(Sequence(0));
    std::vector<float> hy(static_cast<size_t>(g.units() * g.state())), cy(hy.size());
    std::vector<float> gates(static_cast<size_t>(T * B * width));
    for (int64_t layer = 0; layer < g.layers; ++layer) {
      std::vector<float> out(static_cast<size_t>(T * B * D * H));
      for (int64_t d = 0; d < D; ++d) {
        const int64_t unit = layer * D + d;
        const std::vector<float> w_ih = Param(unit, 0), w_hh = Param(unit, 1), b_hh = Bias(unit, 3);
        Gemm(false, true, T * B, width, g.layer_input(layer), x.data(), w_ih.data(), 0.0f, gates.data());
        AddRows(Bias(unit, 2), T * B, gates.data());
        if (g.lstm) AddRows(b_hh, T * B, gates.data());
        std::vector<float> h = Initial(0, unit), c = g.lstm ? Initial(1, unit) : std::vector<float>();
        std::vector<std::vector<float>> saved(static_cast<size_t>(g.saved()), std::vector<float>(static_cast<size_t>(g.sequence())));
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = g.step(d, s);
          float* at = gates.data() + t * B * width;
          if (g.lstm) {
            LstmStep(t, at, w_hh, &h, &c, &saved);
          } else {
            GruStep(t, at, w_hh, b_hh, &h, &saved);
          }
          for (int64_t r = 0; r < B; ++r) std::copy_n(h.begin() + r * H, H, out.begin() + ((t * B + r) * D + d) * H);
        }
        KeepState(h, unit, &hy);
        if (g.lstm) KeepState(c, unit, &cy);
        for (int v = 0; v < g.saved(); ++v) {
          if (saved_at[v] >= 0) Store(saved[static_cast<size_t>(v)], tensor(saved_at[v] + static_cast<int>(unit)));
        }
      }
      x.swap(out);
    }
    Store(x, Sequence(sequence_at));
    Store(hy, tensor(state_at));
    if (cell_at >= 0) Store(cy, tensor(cell_at));
    return ACLNN_SUCCESS;
  }
};

class BackwardWork final : public RnnWork {
 public:
  using RnnWork::RnnWork;

 private:
  std::vector<float> SavedOf(int which, int64_t unit) const {
    return Load(tensor(saved_at[which] + static_cast<int>(unit)));
  }

  // The layer's input: the sequence, or the layer below's h of both directions side by side.
  std::vector<float> LayerInput(int64_t layer) const {
    if (layer == 0) return Load(Sequence(0));
    const int64_t rows = g.steps * g.batch, H = g.hidden, in = g.layer_input(layer);
    std::vector<float> x(static_cast<size_t>(rows * in));
    for (int64_t d = 0; d < g.directions; ++d) {
      const std::vector<float> below = SavedOf(kSavedH, (layer - 1) * g.directions + d);
      for (int64_t r = 0; r < rows; ++r) std::copy_n(below.begin() + r * H, H, x.begin() + r * in + d * H);
    }
    return x;
  }

  // The parameters' gradients over every step at once (dgi: the input side's gate gradients, dgh
  // the hidden side's), and dx += dgi @ W_ih.
  void ParamGrads(int64_t unit, int64_t in, const std::vector<float>& x, const std::vector<float>& h_before,
                  const std::vector<float>& dgi, const std::vector<float>& dgh, std::vector<float>* dx) const {
    const int64_t rows = g.steps * g.batch, width = g.width();
    std::vector<float> d_ih(static_cast<size_t>(width * in)), d_hh(static_cast<size_t>(width * g.hidden));
    Gemm(true, false, width, in, rows, dgi.data(), x.data(), 0.0f, d_ih.data());
    Gemm(true, false, width, g.hidden, rows, dgh.data(), h_before.data(), 0.0f, d_hh.data());
    Gemm(false, false, rows, in, width, dgi.data(), Param(unit, 0).data(), 1.0f, dx->data());
    const int at = dparams_at + static_cast<int>(unit * g.per_unit());
    Store(d_ih, tensor(at));
    Store(d_hh, tensor(at + 1));
    if (!g.bias) return;
    for (int side = 0; side < 2; ++side) {
      const std::vector<float>& dz = side ? dgh : dgi;
      std::vector<float> d_b(static_cast<size_t>(width), 0.0f);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t k = 0; k < width; ++k) d_b[static_cast<size_t>(k)] += dz[static_cast<size_t>(r * width + k)];
      }
      Store(d_b, tensor(at + 2 + side));
    }
  }

  aclnnStatus Compute() override {
    const int64_t T = g.steps, B = g.batch, H = g.hidden, D = g.directions, width = g.width();
    // An absent dy, dh or dc (the loss does not reach the output, h_n or c_n: autograd's undefined
    // gradient) is zeros.
    const std::vector<float> no_state(static_cast<size_t>(g.units() * B * H), 0.0f);
    const std::vector<float> dh_last = dh_at >= 0 ? Load(tensor(dh_at)) : no_state;
    const std::vector<float> dc_last = dc_at >= 0 ? Load(tensor(dc_at)) : g.lstm ? no_state : std::vector<float>();
    std::vector<float> dh_prev(dh_last.size()), dc_prev(dc_last.size());
    // [T, B, D * H] of the layer being walked
    std::vector<float> dy = dy_at >= 0 ? Load(Sequence(dy_at)) : std::vector<float>(static_cast<size_t>(T * B * D * H), 0.0f);
    std::vector<float> dgi(static_cast<size_t>(T * B * width)), dgh(g.lstm ? 0 : dgi.size());
    std::vector<float> h_before(static_cast<size_t>(g.sequence()));
    for (int64_t layer = g.layers - 1; layer >= 0; --layer) {
      const int64_t in = g.layer_input(layer);
      const std::vector<float> x = LayerInput(layer);
      std::vector<float> dx(static_cast<size_t>(T * B * in), 0.0f);
      for (int64_t d = 0; d < D; ++d) {
        const int64_t unit = layer * D + d;
        std::vector<std::vector<float>> sv;
        for (int v = 0; v < g.saved(); ++v) sv.push_back(SavedOf(v, unit));
        const std::vector<float> h0 = Initial(0, unit), c0 = g.lstm ? Initial(1, unit) : std::vector<float>();
        const std::vector<float> w_hh = Param(unit, 1);
        std::vector<float> dh = UnitRows(dh_last, unit), dc = g.lstm ? UnitRows(dc_last, unit) : std::vector<float>();
        for (int64_t s = T - 1; s >= 0; --s) {
          const int64_t t = g.step(d, s), before = g.step(d, s - 1);  // the step this one starts from
          std::copy_n(s == 0 ? h0.begin() : sv[kSavedH].begin() + before * B * H, B * H, h_before.begin() + t * B * H);
          const float* h_prev = h_before.data() + t * B * H;
          const float* c_prev = g.lstm ? (s == 0 ? c0.data() : sv[kC].data() + before * B * H) : nullptr;
          float* row_i = dgi.data() + t * B * width;
          float* row_h = g.lstm ? row_i : dgh.data() + t * B * width;
          std::vector<float> carry(static_cast<size_t>(B * H), 0.0f);  // dh_prev's part outside W_hh
          for (int64_t b = 0; b < B; ++b) {
            for (int64_t k = 0; k < H; ++k) {
              const size_t at = static_cast<size_t>(b * H + k), kept = static_cast<size_t>(t * B * H) + at;
              const float grad_h = dy[static_cast<size_t>(((t * B + b) * D + d) * H + k)] + dh[at];
              float* zi = row_i + b * width;
              float* zh = row_h + b * width;
              if (g.lstm) {
                const float i = sv[kI][kept], j = sv[kJ][kept], f = sv[kF][kept], o = sv[kO][kept];
                const float tc = sv[kTanhC][kept];
                const float grad_c = dc[at] + grad_h * o * (1.0f - tc * tc);
                zi[k] = grad_c * j * i * (1.0f - i);
                zi[H + k] = grad_c * c_prev[at] * f * (1.0f - f);
                zi[2 * H + k] = grad_c * i * (1.0f - j * j);
                zi[3 * H + k] = grad_h * tc * o * (1.0f - o);
                dc[at] = grad_c * f;
              } else {
                const float r = sv[kR][kept], z = sv[kZ][kept], n = sv[kN][kept], hn = sv[kHn][kept];
                const float grad_n = grad_h * (1.0f - z) * (1.0f - n * n);
                zi[k] = zh[k] = grad_n * hn * r * (1.0f - r);
                zi[H + k] = zh[H + k] = grad_h * (h_prev[at] - n) * z * (1.0f - z);
                zi[2 * H + k] = grad_n;
                zh[2 * H + k] = grad_n * r;
                carry[at] = grad_h * z;
              }
            }
          }
          std::copy(carry.begin(), carry.end(), dh.begin());
          Gemm(false, false, B, H, width, row_h, w_hh.data(), 1.0f, dh.data());
        }
        KeepState(dh, unit, &dh_prev);
        if (g.lstm) KeepState(dc, unit, &dc_prev);
        ParamGrads(unit, in, x, h_before, dgi, g.lstm ? dgi : dgh, &dx);
      }
      dy.swap(dx);
    }
    Store(dy, Sequence(sequence_at));
    Store(dh_prev, tensor(state_at));
    if (cell_at >= 0) Store(dc_prev, tensor(cell_at));
    return ACLNN_SUCCESS;
  }
};

// --- phase 1 ------------------------------------------------------------------------------------

class Planner {
 public:
  Planner(const Call& call, const FamilySpec& family) : call_(call), family_(family) {}

  aclnnStatus Reject(int role, const std::string& message) const {
    return RejectInvalid(call_, family_, role, message);
  }

  // The geometry from input, params and the attributes; `declined` says why the call is not
  // modelled (the planner then declines) when it is otherwise valid.
  aclnnStatus ReadGeometry(Geometry* g, std::string* declined) const {
    const TensorDesc* input = RoleTensor(call_, family_, F::Role::kInput);
    const std::vector<TensorDesc>* params = RoleTensorList(call_, family_, F::Role::kParams);
    if (!input || !params) {
      *declined = "without its input or params";
      return ACLNN_SUCCESS;
    }
    g->lstm = family_.op == F::Op::kLstm || family_.op == F::Op::kLstmBackward;
    if (input->dtype != ACL_FLOAT && input->dtype != ACL_FLOAT16) {
      *declined = std::string("for dtype ") + DTypeName(input->dtype);
      return ACLNN_SUCCESS;
    }
    if (RoleTensor(call_, family_, F::Role::kBatchSizes)) {
      *declined = "for variable-length sequences (batchSizes)";
      return ACLNN_SUCCESS;
    }
    g->layers = RoleInt(call_, family_, F::Role::kNumLayers, 1);
    if (g->layers < 1) return Reject(F::Role::kNumLayers, std::to_string(g->layers) + " is not positive");
    g->directions = RoleBool(call_, family_, F::Role::kBidirectional, false) ? 2 : 1;
    g->bias = RoleBool(call_, family_, F::Role::kHasBias, false);
    g->batch_first = RoleBool(call_, family_, F::Role::kBatchFirst, false);
    const double dropout = RoleNumber(call_, family_, F::Role::kDropout, -1, 0.0);
    if (dropout != 0.0 && g->layers > 1 && RoleBool(call_, family_, F::Role::kTrain, false)) {
      *declined = "for dropout " + std::to_string(dropout) + " between layers while training";
      return ACLNN_SUCCESS;
    }
    if (input->view.size() != 3) {
      return Reject(F::Role::kInput, "shape " + DimsText(input->view) + " is not 3-dimensional");
    }
    g->steps = input->view[g->batch_first ? 1 : 0];
    g->batch = input->view[g->batch_first ? 0 : 1];
    g->input_size = input->view[2];
    const int64_t count = g->units() * g->per_unit();
    if (static_cast<int64_t>(params->size()) != count) {
      return Reject(F::Role::kParams, "has " + std::to_string(params->size()) + " tensors, not " +
                                          std::to_string(count) + " (2 or 4 per layer and direction)");
    }
    if ((*params)[1].view.size() != 2) {
      return Reject(F::Role::kParams, "member 1 (weight_hh) shape " + DimsText((*params)[1].view) +
                                          " is not [gates * hidden_size, hidden_size]");
    }
    g->hidden = (*params)[1].view[1];
    for (int64_t k = 0; k < count; ++k) {
      const int64_t unit = k / g->per_unit(), which = k % g->per_unit();
      const Dims want = which == 0 ? Dims{g->width(), g->layer_input(unit / g->directions)}
                        : which == 1 ? Dims{g->width(), g->hidden} : Dims{g->width()};
      const TensorDesc& p = (*params)[static_cast<size_t>(k)];
      if (p.view != want) {
        return Reject(F::Role::kParams, "member " + std::to_string(k) + " shape " + DimsText(p.view) + " is not " +
                                            DimsText(want));
      }
      if (p.dtype != input->dtype) {
        return Reject(F::Role::kParams, "member " + std::to_string(k) + " dtype " + DTypeName(p.dtype) +
                                            " is not input's " + DTypeName(input->dtype));
      }
    }
    return ACLNN_SUCCESS;
  }

  // A list of `role` whose members are `shapes`, or empty (or null) when `may_be_empty`; its members
  // go to the work's slots from `*next`.
  aclnnStatus KeepList(RnnWork* work, int role, const std::vector<Dims>& shapes, aclDataType dtype, bool may_be_empty,
                       int* next, int* at) const {
    const std::vector<TensorDesc>* list = RoleTensorList(call_, family_, role);
    const size_t count = list ? list->size() : 0;
    if (count == 0 && may_be_empty) {
      *at = -1;
      return ACLNN_SUCCESS;
    }
    if (count != shapes.size()) {
      return Reject(role, "has " + std::to_string(count) + " tensors, not " + std::to_string(shapes.size()));
    }
    *at = *next;
    for (size_t k = 0; k < count; ++k) {
      const TensorDesc& t = (*list)[k];
      if (t.view != shapes[k] || t.dtype != dtype) {
        return Reject(role, "member " + std::to_string(k) + " is " + DTypeName(t.dtype) + " " + DimsText(t.view) +
                                ", not input's dtype and " + DimsText(shapes[k]));
      }
      work->tensor((*next)++).Set(RoleName(call_, family_, role), t);
    }
    return ACLNN_SUCCESS;
  }

  // The tensor of `role`, of `shape` and input's dtype, into the next slot.
  aclnnStatus KeepTensor(RnnWork* work, int role, const Dims& shape, aclDataType dtype, const char* what, int* next,
                         int* at) const {
    const TensorDesc* t = RoleTensor(call_, family_, role);
    if (!t) return Reject(role, "is absent");
    if (aclnnStatus s = CheckShape(call_, family_, role, t, shape, what)) return s;
    if (t->dtype != dtype) {
      return Reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not input's " + DTypeName(dtype));
    }
    *at = *next;
    work->tensor((*next)++).Set(RoleName(call_, family_, role), *t);
    return ACLNN_SUCCESS;
  }

  // The slots every work starts with: input, hx (a list of h and an LSTM's c, or a GRU forward's one
  // tensor, or a GRU backward's list of that tensor: the one tensor op-plugin passes, read as a list by
  // phase 1; when given), the parameters.
  aclnnStatus KeepInputs(RnnWork* work, bool hx_required, int* next) const {
    const Geometry& g = work->g;
    const TensorDesc* input = RoleTensor(call_, family_, F::Role::kInput);
    work->tensor((*next)++).Set(RoleName(call_, family_, F::Role::kInput), *input);
    const std::vector<TensorDesc>* hx = RoleTensorList(call_, family_, F::Role::kHx);
    if (RoleTensor(call_, family_, F::Role::kHx)) {
      if (aclnnStatus s = KeepTensor(work, F::Role::kHx, g.states_shape(), input->dtype,
                                     "[D * num_layers, batch, hidden]", next, &work->hx_at)) {
        return s;
      }
    } else if (!g.lstm && hx && !hx->empty() && hx->front().view.size() == 2) {
      // aclnnGRUBackward's example passes one [B, H] state per unit where its table gives one
      // [D * num_layers, B, H] tensor: the same states, either way.
      work->hx_per_unit = true;
      const std::vector<Dims> states(static_cast<size_t>(g.units()), Dims{g.batch, g.hidden});
      if (aclnnStatus s = KeepList(work, F::Role::kHx, states, input->dtype, false, next, &work->hx_at)) return s;
    } else if (hx_required || (hx && !hx->empty())) {
      const std::vector<Dims> states(g.lstm ? 2 : 1, g.states_shape());
      if (aclnnStatus s = KeepList(work, F::Role::kHx, states, input->dtype, false, next, &work->hx_at)) return s;
    }
    std::vector<Dims> shapes;
    for (const TensorDesc& p : *RoleTensorList(call_, family_, F::Role::kParams)) shapes.push_back(p.view);
    return KeepList(work, F::Role::kParams, shapes, input->dtype, false, next, &work->params_at);
  }

  aclnnStatus KeepSaved(RnnWork* work, bool may_be_empty, int* next) const {
    const Geometry& g = work->g;
    const std::vector<Dims> shapes(static_cast<size_t>(g.units()), g.unit_shape());
    const aclDataType dtype = RoleTensor(call_, family_, F::Role::kInput)->dtype;
    for (int v = 0; v < g.saved(); ++v) {
      if (aclnnStatus s = KeepList(work, g.saved_roles()[v], shapes, dtype, may_be_empty, next, &work->saved_at[v])) {
        return s;
      }
    }
    return ACLNN_SUCCESS;
  }

  // The op's tensors beyond the inputs: (role, shape, what it is, slot field); a cell role only
  // for an LSTM.
  struct Kept {
    int role;
    Dims shape;
    const char* what;
    int* at;
    bool lstm_only;
    bool absent_is_zeros = false;  // a null pointer admitted (client_optional): *at = -1, read as zeros
  };
  aclnnStatus KeepTensors(RnnWork* work, const std::vector<Kept>& tensors, int* next) const {
    const aclDataType dtype = RoleTensor(call_, family_, F::Role::kInput)->dtype;
    for (const Kept& t : tensors) {
      if (t.lstm_only && !work->g.lstm) continue;
      if (t.absent_is_zeros && !RoleTensor(call_, family_, t.role)) {
        *t.at = -1;
        continue;
      }
      if (aclnnStatus s = KeepTensor(work, t.role, t.shape, dtype, t.what, next, t.at)) return s;
    }
    return ACLNN_SUCCESS;
  }

 private:
  const Call& call_;
  const FamilySpec& family_;
};

constexpr const char* kStates = "[D * num_layers, batch, hidden]";

aclnnStatus Plan(const Planner& planner, const Geometry& g, bool backward, const Call& call, ExecutorWork** work) {
  if (backward) {
    if (const Call::Param* mask = RoleParam(call, *call.spec.family, F::Role::kOutputMask)) {
      for (bool m : mask->bool_values) {
        if (!m) return Decline(call, work, "for an outputMask that leaves a gradient out");
      }
    }
  }
  // input, hx (2 members, or one per unit), params, 6 tensors at most, the saved lists, the parameters'
  // gradients.
  const int slots = static_cast<int>(1 + std::max<int64_t>(2, g.units()) + 2 * g.units() * g.per_unit() + 6 +
                                    g.saved() * g.units());
  std::unique_ptr<RnnWork> made;
  if (backward) {
    made = std::make_unique<BackwardWork>(call.spec.name, slots);
  } else {
    made = std::make_unique<ForwardWork>(call.spec.name, slots);
  }
  made->g = g;
  int next = 0;
  if (aclnnStatus s = planner.KeepInputs(made.get(), backward, &next)) return s;
  const Dims output = g.sequence_shape(g.directions * g.hidden), states = g.states_shape();
  RnnWork* w = made.get();
  if (!backward) {
    if (aclnnStatus s = planner.KeepTensors(w, {{F::Role::kOutput, output, "the sequence of D * hidden_size features",
                                                 &w->sequence_at, false},
                                                {F::Role::kHy, states, kStates, &w->state_at, false},
                                                {F::Role::kCy, states, kStates, &w->cell_at, true}}, &next)) {
      return s;
    }
    // Not training, the saved lists have no value (aclnnLSTM's page: "当train=False时，无输出值", for
    // hOut and cOut too, which op-plugin then fills with 0-d placeholders; aclnnGRU's: null
    // pointers): left unread and unwritten, whatever they hold.
    if (RoleBool(call, *call.spec.family, F::Role::kTrain, true)) {
      if (aclnnStatus s = planner.KeepSaved(w, true, &next)) return s;
    }
    *work = made.release();
    return ACLNN_SUCCESS;
  }
  if (aclnnStatus s = planner.KeepTensors(w, {{F::Role::kDy, output, "the output's shape", &w->dy_at, false, true},
                                              {F::Role::kDh, states, kStates, &w->dh_at, false, true},
                                              {F::Role::kDc, states, kStates, &w->dc_at, true, true},
                                              {F::Role::kDx, g.sequence_shape(g.input_size), "the input's shape",
                                               &w->sequence_at, false},
                                              {F::Role::kDhPrev, states, kStates, &w->state_at, false},
                                              {F::Role::kDcPrev, states, kStates, &w->cell_at, true}}, &next)) {
    return s;
  }
  if (aclnnStatus s = planner.KeepSaved(w, false, &next)) return s;
  std::vector<Dims> shapes;
  for (const TensorDesc& p : *RoleTensorList(call, *call.spec.family, F::Role::kParams)) shapes.push_back(p.view);
  const aclDataType dtype = RoleTensor(call, *call.spec.family, F::Role::kInput)->dtype;
  if (aclnnStatus s = planner.KeepList(w, F::Role::kDparams, shapes, dtype, false, &next, &w->dparams_at)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanRnn(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  Planner planner(call, family);
  Geometry g;
  std::string declined;
  if (aclnnStatus s = planner.ReadGeometry(&g, &declined)) return s;
  if (!declined.empty()) return Decline(call, work, declined);
  const bool backward = family.op == F::Op::kLstmBackward || family.op == F::Op::kGruBackward;
  return Plan(planner, g, backward, call, work);
}

}  // namespace aclsim
