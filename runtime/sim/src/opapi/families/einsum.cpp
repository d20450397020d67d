// The einsum family: aclnnEinsum, output[rhs] = sum over the letters of lhs1 and lhs2 that rhs
// lacks of tensors[0][lhs1] * tensors[1][lhs2] ("term1,term2->output-term", the page's formula).
// The engine computes any such equation of letters; the page registers two ("abcd,abced->abce",
// "a,b->ab"), and any other is refused by name (161002, the page's "equation is not in the
// registry"), as are an ellipsis and a form without "->". Floats accumulate in float (double for
// DOUBLE), integers in int64; the output's positions spread over the threads.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = EinsumFamily;

enum Slot { kX1, kX2, kOut, kSlots };

// The equations the page lists as registered.
const char* const kRegistered[] = {"abcd,abced->abce", "a,b->ab"};

class EinsumWork final : public FamilyWork {
 public:
  explicit EinsumWork(const char* api) : FamilyWork(api, kSlots) {}

  // Each output position's letters, then the summed ones: their extents, and each operand's
  // element stride per letter (0 where it lacks the letter).
  Dims out_extents, sum_extents;
  Dims out_strides[2], sum_strides[2];

 private:
  aclnnStatus Compute() override {
    int64_t positions = 1, terms = 1;
    for (int64_t e : out_extents) positions *= e;
    for (int64_t e : sum_extents) terms *= e;
    if (positions == 0) return ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const T* x[2] = {static_cast<const T*>(ContiguousAs(tensor(kX1), type, 0)),
                       static_cast<const T*>(ContiguousAs(tensor(kX2), type, 1))};
      std::vector<T> out(static_cast<size_t>(positions));
      auto offsets = [](int64_t flat, const Dims& extents, const Dims* strides, int64_t* at) {
        at[0] = at[1] = 0;
        for (size_t d = extents.size(); d-- > 0;) {
          const int64_t i = flat % extents[d];
          flat /= extents[d];
          at[0] += i * strides[0][d];
          at[1] += i * strides[1][d];
        }
      };
      auto body = [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          int64_t base[2];
          offsets(p, out_extents, out_strides, base);
          T sum = T(0);
          for (int64_t t = 0; t < terms; ++t) {
            int64_t at[2];
            offsets(t, sum_extents, sum_strides, at);
            sum += x[0][base[0] + at[0]] * x[1][base[1] + at[1]];
          }
          out[static_cast<size_t>(p)] = sum;
        }
      };
      const int64_t tasks = positions * terms < (1 << 16) ? 1 : std::min<int64_t>(positions, ParallelThreads() * 4);
      if (tasks <= 1) {
        body(0, positions);
      } else {
        ParallelFor(tasks, [&](int64_t k) { body(positions * k / tasks, positions * (k + 1) / tasks); });
      }
      ScatterFrom(out.data(), type, tensor(kOut));
    });
    return ACLNN_SUCCESS;
  }
};

Dims ContiguousStrides(const Dims& shape) {
  Dims strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

}  // namespace

aclnnStatus PlanEinsum(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const std::vector<TensorDesc>* tensors = RoleTensorList(call, family, F::Role::kTensors);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const int equation_index = family.roles[F::Role::kEquation];
  if (!tensors || !out || equation_index < 0) return Decline(call, work, "without its tensors or equation");
  const ParamRejecter reject(call, family);
  const std::string equation = CallString(call, equation_index);
  if (std::find(std::begin(kRegistered), std::end(kRegistered), equation) == std::end(kRegistered)) {
    return reject(F::Role::kEquation, "\"" + equation + "\" is not in the registry (the page's \"abcd,abced->abce\" and \"a,b->ab\")");
  }
  if (tensors->size() != 2) return reject(F::Role::kTensors, "holds " + std::to_string(tensors->size()) + " tensors, not 2");
  const size_t arrow = equation.find("->");
  const size_t comma = equation.find(',');
  const std::string terms[2] = {equation.substr(0, comma), equation.substr(comma + 1, arrow - comma - 1)};
  const std::string rhs = equation.substr(arrow + 2);
  const TensorDesc* x[2] = {&(*tensors)[0], &(*tensors)[1]};
  std::map<char, int64_t> extent;
  for (int k = 0; k < 2; ++k) {
    if (x[k]->view.size() != terms[k].size()) {
      return reject(F::Role::kTensors, "member " + std::to_string(k) + ": shape " + DimsText(x[k]->view) + " does not have the " +
                                           std::to_string(terms[k].size()) + " dimensions of \"" + terms[k] + "\"");
    }
    for (size_t d = 0; d < terms[k].size(); ++d) {
      const auto found = extent.emplace(terms[k][d], x[k]->view[d]);
      if (found.first->second != x[k]->view[d]) {
        return reject(F::Role::kTensors, std::string("letter ") + terms[k][d] + " has extents " +
                                             std::to_string(found.first->second) + " and " + std::to_string(x[k]->view[d]));
      }
    }
  }
  if (x[0]->dtype != x[1]->dtype) {
    return reject(F::Role::kTensors, std::string("dtypes ") + DTypeName(x[0]->dtype) + " and " + DTypeName(x[1]->dtype) + " differ");
  }
  // The sum in the tensors' compute type (integers exact in int64), converted to output's dtype:
  // an output wider than the tensors (INT64 for INT16 ones) receives the exact result.
  std::unique_ptr<EinsumWork> made(new EinsumWork(call.spec.name));
  ComputeType out_type;
  if (!FamilyComputeType(x[0]->dtype, true, &made->type) || !FamilyComputeType(out->dtype, true, &out_type)) {
    return Decline(call, work, std::string("for dtypes ") + DTypeName(x[0]->dtype) + " and " + DTypeName(out->dtype));
  }
  Dims strides[2] = {ContiguousStrides(x[0]->view), ContiguousStrides(x[1]->view)};
  auto stride_of = [&](int k, char letter) -> int64_t {
    const size_t d = terms[k].find(letter);
    return d == std::string::npos ? 0 : strides[k][d];
  };
  Dims shape;
  for (char letter : rhs) {
    shape.push_back(extent[letter]);
    made->out_extents.push_back(extent[letter]);
    for (int k = 0; k < 2; ++k) made->out_strides[k].push_back(stride_of(k, letter));
  }
  for (const auto& [letter, size] : extent) {
    if (rhs.find(letter) != std::string::npos) continue;
    made->sum_extents.push_back(size);
    for (int k = 0; k < 2; ++k) made->sum_strides[k].push_back(stride_of(k, letter));
  }
  made->tensor(kX1).Set(RoleName(call, family, F::Role::kTensors), *x[0]);
  made->tensor(kX2).Set(RoleName(call, family, F::Role::kTensors), *x[1]);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "the equation's output term", kOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
