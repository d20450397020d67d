#include "opapi/onednn.h"

#include "ascendcl/settings.h"

#ifdef ACLSIM_HAVE_ONEDNN

#include <omp.h>

#include <mutex>
#include <set>

#include "oneapi/dnnl/dnnl.hpp"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

// oneDNN's ISA cap for the kernel path: set once, before oneDNN creates anything (it ignores a cap
// set later).
const dnnl::engine& Engine() {
  static const dnnl::engine engine = [] {
    // The AVX-512 path: no cap, oneDNN's own choice among the CPU's extensions of AVX-512.
    switch (KernelPath()) {
      case Isa::kBaseline: dnnl::set_max_cpu_isa(dnnl::cpu_isa::sse41); break;
      case Isa::kAvx2: dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2); break;
      default: break;
    }
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

// oneDNN sizes its parallel regions by the calling thread's OpenMP setting: the pool's count, so that
// a product on a stream's worker neither oversubscribes the cores nor leaves one idle.
void UsePoolThreads() { omp_set_num_threads(ParallelThreads()); }

dnnl::memory::data_type DnnlType(aclDataType dtype) {
  switch (dtype) {
    case ACL_BF16: return dnnl::memory::data_type::bf16;
    case ACL_FLOAT16: return dnnl::memory::data_type::f16;
    default: return dnnl::memory::data_type::f32;
  }
}

// rows x cols as stored: row-major with leading dimension ld, or its transpose (column-major).
dnnl::memory::desc MatrixDesc(aclDataType dtype, int64_t rows, int64_t cols, bool trans, int64_t ld) {
  const dnnl::memory::dims strides = trans ? dnnl::memory::dims{1, ld} : dnnl::memory::dims{ld, 1};
  return dnnl::memory::desc({rows, cols}, DnnlType(dtype), strides);
}

// The implementations' names for route(), interned: an engine path must outlive the report, whose
// entries are "name=route" separated by commas.
const char* Interned(std::string text) {
  for (char& c : text) {
    if (c == ',' || c == '=') c = ' ';
  }
  static std::mutex mutex;
  static std::set<std::string> names;
  std::lock_guard<std::mutex> lock(mutex);
  return names.insert(text).first->c_str();
}

// oneDNN's ISAs are bit sets, each containing the ones below it.
bool HasIsa(dnnl::cpu_isa effective, dnnl::cpu_isa wanted) {
  return (static_cast<unsigned>(effective) & static_cast<unsigned>(wanted)) == static_cast<unsigned>(wanted);
}

// Whether the kernel path lets oneDNN use `wanted`; false where oneDNN cannot start (the products
// then take OpenBLAS).
bool PathHas(dnnl::cpu_isa wanted) {
  try {
    Engine();
    return HasIsa(dnnl::get_effective_cpu_isa(), wanted);
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace

bool DnnlMultiplies(aclDataType dtype) {
  static const bool bf16 = PathHas(dnnl::cpu_isa::avx512_core_bf16);
  static const bool f16 = PathHas(dnnl::cpu_isa::avx512_core_fp16);
  return dtype == ACL_BF16 ? bf16 : dtype == ACL_FLOAT16 && f16;
}

struct DnnlProduct::Planned {
  dnnl::matmul product;
  dnnl::memory a, b, c;
  const char* route = "onednn";
};

DnnlProduct::DnnlProduct() = default;
DnnlProduct::~DnnlProduct() = default;

bool DnnlProduct::Plan(aclDataType operands, aclDataType result, int64_t m, int64_t n, int64_t k, const DnnlMatrix& a,
                       const DnnlMatrix& b, int64_t ldc, float alpha, float beta, std::string* why) {
  try {
    UsePoolThreads();
    const dnnl::engine& engine = Engine();
    const dnnl::memory::desc da = MatrixDesc(operands, m, k, a.trans, a.ld);
    const dnnl::memory::desc db = MatrixDesc(operands, k, n, b.trans, b.ld);
    const dnnl::memory::desc dc = MatrixDesc(result, m, n, false, ldc);
    // alpha scales the float accumulator, then beta * c is added to it, both before c's rounding.
    dnnl::post_ops steps;
    if (alpha != 1.0f) steps.append_eltwise(dnnl::algorithm::eltwise_linear, alpha, 0.0f);
    if (beta != 0.0f) steps.append_sum(beta);
    dnnl::primitive_attr attr;
    attr.set_post_ops(steps);
    const dnnl::matmul::primitive_desc pd(engine, da, db, dc, attr);
    auto planned = std::make_unique<Planned>();
    planned->product = dnnl::matmul(pd);
    planned->a = dnnl::memory(da, engine, const_cast<void*>(a.data));
    planned->b = dnnl::memory(db, engine, const_cast<void*>(b.data));
    planned->c = dnnl::memory(dc, engine, nullptr);
    planned->route = Interned(std::string("onednn:") + pd.impl_info_str());
    planned_ = std::move(planned);
    return true;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return false;
  }
}

bool DnnlProduct::Run(const void* a, const void* b, void* c, std::string* why) {
  try {
    UsePoolThreads();
    const ForeignTeam team;
    thread_local dnnl::stream stream(Engine());
    planned_->a.set_data_handle(const_cast<void*>(a));
    planned_->b.set_data_handle(const_cast<void*>(b));
    planned_->c.set_data_handle(c);
    planned_->product.execute(stream, {{DNNL_ARG_SRC, planned_->a}, {DNNL_ARG_WEIGHTS, planned_->b},
                                       {DNNL_ARG_DST, planned_->c}});
    stream.wait();
    return true;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return false;
  }
}

const char* DnnlProduct::route() const { return planned_ ? planned_->route : "onednn"; }

}  // namespace aclsim

#else  // a build without oneDNN: no 16-bit kernels, every product on OpenBLAS

namespace aclsim {

struct DnnlProduct::Planned {};

bool DnnlMultiplies(aclDataType) { return false; }
DnnlProduct::DnnlProduct() = default;
DnnlProduct::~DnnlProduct() = default;
bool DnnlProduct::Plan(aclDataType, aclDataType, int64_t, int64_t, int64_t, const DnnlMatrix&, const DnnlMatrix&,
                       int64_t, float, float, std::string* why) {
  *why = "this build has no oneDNN";
  return false;
}
bool DnnlProduct::Run(const void*, const void*, void*, std::string* why) {
  *why = "this build has no oneDNN";
  return false;
}
const char* DnnlProduct::route() const { return "onednn"; }

}  // namespace aclsim

#endif  // ACLSIM_HAVE_ONEDNN
