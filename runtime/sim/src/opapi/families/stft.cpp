// The stft family: aclStft, the short-time Fourier transform op-plugin calls for torch.stft, as
// aten::stft computes it (torch.stft centres the signal before it):
//   X[b, w, m] = s * sum_{k < nFft} window'[k] * self[b, m * hopLength + k] * exp(-2 pi i w k / nFft)
// for the T = (L - nFft) / hopLength + 1 frames m and the nFft frequencies w (nFft / 2 + 1 when
// onesided), window' the window's winLength values centred in nFft points (ones when absent) and
// s = 1 / sqrt(nFft) when normalized, else 1. out is complex [B?, N, T], or real [B?, N, T, 2]
// holding (real, imaginary) when returnComplex is false. A direct transform in double (the
// frames are short: torch_npu sends what fits the device's cache), each frequency's twiddle
// taken from a table of nFft roots so that w * k never loses precision.
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = StftFamily;
using Complex = std::complex<double>;

enum Slot { kSelf, kWindow, kOut, kSlots };

bool IsDouble(aclDataType dtype) { return dtype == ACL_DOUBLE || dtype == ACL_COMPLEX128; }

class StftWork final : public FamilyWork {
 public:
  explicit StftWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t batch = 1, length = 0, n_fft = 0, hop = 0, win_length = 0, frames = 0, frequencies = 0;
  bool has_window = false, normalized = false, return_complex = true;

 private:
  aclnnStatus Compute() override {
    std::vector<Complex> signal(static_cast<size_t>(batch * length));
    GatherAs(tensor(kSelf), ComputeType::kComplex128, signal.data());
    // The window centred in n_fft points, zero outside (aten::stft's padding of a shorter window).
    std::vector<Complex> window(static_cast<size_t>(n_fft), Complex(0.0));
    const int64_t left = (n_fft - win_length) / 2;
    if (has_window) {
      GatherAs(tensor(kWindow), ComputeType::kComplex128, window.data() + left);
    } else {
      for (int64_t k = 0; k < win_length; ++k) window[static_cast<size_t>(left + k)] = 1.0;
    }
    std::vector<Complex> roots(static_cast<size_t>(n_fft));
    const double kTwoPi = 6.283185307179586476925286766559;
    for (int64_t j = 0; j < n_fft; ++j) {
      const double angle = -kTwoPi * static_cast<double>(j) / static_cast<double>(n_fft);
      roots[static_cast<size_t>(j)] = Complex(std::cos(angle), std::sin(angle));
    }
    const double scale = normalized ? 1.0 / std::sqrt(static_cast<double>(n_fft)) : 1.0;
    // [batch, frequencies, frames], complex.
    std::vector<Complex> result(static_cast<size_t>(batch * frequencies * frames));
    // One task per frame: each writes its own column of the result.
    ParallelFor(batch * frames, [&](int64_t task) {
      const int64_t b = task / frames, m = task % frames;
      std::vector<Complex> frame(static_cast<size_t>(n_fft));
      const Complex* samples = signal.data() + b * length + m * hop;
      for (int64_t k = 0; k < n_fft; ++k) frame[static_cast<size_t>(k)] = window[static_cast<size_t>(k)] * samples[k];
      for (int64_t w = 0; w < frequencies; ++w) {
        Complex sum(0.0);
        for (int64_t k = 0; k < n_fft; ++k) sum += frame[static_cast<size_t>(k)] * roots[static_cast<size_t>((w * k) % n_fft)];
        result[static_cast<size_t>((b * frequencies + w) * frames + m)] = sum * scale;
      }
    });
    if (return_complex) {
      ScatterFrom(result.data(), ComputeType::kComplex128, tensor(kOut));
    } else {
      std::vector<double> pairs(result.size() * 2);
      for (size_t i = 0; i < result.size(); ++i) {
        pairs[2 * i] = result[i].real();
        pairs[2 * i + 1] = result[i].imag();
      }
      ScatterFrom(pairs.data(), ComputeType::kFloat64, tensor(kOut));
    }
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanStft(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* window = RoleTensor(call, family, F::Role::kWindow);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!self || !out) return Decline(call, work, "without self or out");
  const ParamRejecter reject(call, family);
  for (const TensorDesc* t : {self, window, out}) {
    if (t && t->dtype != ACL_FLOAT && t->dtype != ACL_DOUBLE && !IsComplexDType(t->dtype)) {
      return DeclineDtype(call, work, t->dtype);
    }
  }
  const Dims& shape = self->view;
  if (shape.size() != 1 && shape.size() != 2) return reject(F::Role::kSelf, "shape " + DimsText(shape) + " is not [L] or [B, L]");
  std::unique_ptr<StftWork> made(new StftWork(call.spec.name));
  const bool batched = shape.size() == 2;
  made->batch = batched ? shape[0] : 1;
  made->length = shape.back();
  made->n_fft = RoleInt(call, family, F::Role::kNFft, 0);
  made->hop = RoleInt(call, family, F::Role::kHopLength, 0);
  made->win_length = RoleInt(call, family, F::Role::kWinLength, 0);
  made->normalized = RoleBool(call, family, F::Role::kNormalized, false);
  const bool onesided = RoleBool(call, family, F::Role::kOnesided, true);
  made->return_complex = RoleBool(call, family, F::Role::kReturnComplex, true);
  if (made->n_fft <= 0 || made->n_fft > made->length) {
    return reject(F::Role::kNFft, std::to_string(made->n_fft) + " is outside (0, L] (L = " + std::to_string(made->length) + ")");
  }
  if (made->hop <= 0) return reject(F::Role::kHopLength, std::to_string(made->hop) + " is not positive");
  if (made->win_length <= 0 || made->win_length > made->n_fft) {
    return reject(F::Role::kWinLength, std::to_string(made->win_length) + " is outside (0, nFft] (nFft = " +
                                           std::to_string(made->n_fft) + ")");
  }
  if (window) {
    if (window->view.size() != 1 || window->view[0] != made->win_length) {
      return reject(F::Role::kWindow, "shape " + DimsText(window->view) + " is not [winLength] = [" +
                                          std::to_string(made->win_length) + "]");
    }
    if (window->dtype != self->dtype) {
      return reject(F::Role::kWindow, std::string("dtype ") + DTypeName(window->dtype) + " is not self's " + DTypeName(self->dtype));
    }
  }
  if (IsComplexDType(self->dtype) && (onesided || !made->return_complex)) {
    return reject(onesided ? F::Role::kOnesided : F::Role::kReturnComplex,
                  "a complex self needs onesided false and returnComplex true");
  }
  made->frames = (made->length - made->n_fft) / made->hop + 1;
  made->frequencies = onesided ? made->n_fft / 2 + 1 : made->n_fft;
  Dims expected;
  if (batched) expected.push_back(made->batch);
  expected.push_back(made->frequencies);
  expected.push_back(made->frames);
  if (!made->return_complex) expected.push_back(2);
  const bool precise = IsDouble(self->dtype);
  const aclDataType want = made->return_complex ? (precise ? ACL_COMPLEX128 : ACL_COMPLEX64) : (precise ? ACL_DOUBLE : ACL_FLOAT);
  if (out->dtype != want) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not " + DTypeName(want) +
                                     " (self's " + DTypeName(self->dtype) + (made->return_complex ? ", complex)" : ", real)"));
  }
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  if (window) {
    made->has_window = true;
    made->tensor(kWindow).Set(RoleName(call, family, F::Role::kWindow), *window);
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, expected, "the frames' spectra", kOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
