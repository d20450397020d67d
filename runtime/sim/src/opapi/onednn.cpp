#include "opapi/onednn.h"

#include "ascendcl/settings.h"

#ifdef ACLSIM_HAVE_ONEDNN

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

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

// False under ACLNN_SIM_ONEDNN=0, with the reason in `why`: every caller then takes OpenBLAS.
bool Allowed(std::string* why) {
  if (Settings().onednn) return true;
  if (why) *why = "ACLNN_SIM_ONEDNN=0";
  return false;
}

// Whether the kernel path lets oneDNN use `wanted`; false where oneDNN cannot start or is not
// allowed (the products then take OpenBLAS).
bool PathHas(dnnl::cpu_isa wanted) {
  if (!Allowed(nullptr)) return false;
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
  if (!Allowed(why)) return false;
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

namespace {

// A convolution planned for one shape. The user's operands are plain (nc[d]hw, [g]oi[d]hw); the
// primitive takes channel blocks (below) and its own choice of the weight's layout, with a reorder on
// each side, as PyTorch's own call of oneDNN does. The input's reorder writes the
// padded buffer's interior only: its zeros are written once, when it is made.
struct PlannedConv {
  dnnl::convolution_forward conv;
  dnnl::memory x, w, y;     // the user's buffers (plain; x the part of the input the outputs read)
  dnnl::memory cx, cw, cy;  // the primitive's (cx: the padded input)
  dnnl::memory cx_inner;    // cx's part where x goes
  dnnl::reorder to_x, to_w, from_y;
  size_t bytes = 0;  // of the buffers it owns (cx, cw, cy)
  const char* route = "onednn";
};

bool SameShape(const DnnlConvShape& a, const DnnlConvShape& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::unique_ptr<PlannedConv> PlanConv(const DnnlConvShape& s) {
  const dnnl::engine& engine = Engine();
  using dims = dnnl::memory::dims;
  using tag = dnnl::memory::format_tag;
  const auto f32 = dnnl::memory::data_type::f32;
  // A 2d convolution as one (depth 1 everywhere), whose kernels oneDNN has more of than 3d ones.
  const bool deep = s.x[0] != 1 || s.k[0] != 1 || s.y[0] != 1 || s.padded[0] != 1;
  const size_t lead = deep ? 0 : 1;
  const auto spatial = [&](dims head, const int64_t* values, int64_t minus = 0) {
    for (size_t i = lead; i < 3; ++i) head.push_back(values[i] - minus);
    return head;
  };
  const tag data = deep ? tag::ncdhw : tag::nchw;
  const dims x = spatial({s.n, s.groups * s.cxg}, s.x), padded = spatial({s.n, s.groups * s.cxg}, s.padded);
  const dims y = spatial({s.n, s.groups * s.cyg}, s.y);
  const dims w = s.groups == 1 ? spatial({s.cyg, s.cxg}, s.k) : spatial({s.groups, s.cyg, s.cxg}, s.k);
  const dnnl::memory::desc ux(x, f32, data), uy(y, f32, data);
  const dnnl::memory::desc uw(w, f32, s.groups == 1 ? (deep ? tag::oidhw : tag::oihw) : (deep ? tag::goidhw : tag::goihw));
  // oneDNN's dilation counts the gaps between kernel taps: d - 1.
  const dims strides = spatial({}, s.s), gaps = spatial({}, s.d, 1), none(3 - lead, 0);
  const auto describe = [&](tag layout) {
    return dnnl::convolution_forward::primitive_desc(
        engine, dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        dnnl::memory::desc(padded, f32, layout), dnnl::memory::desc(w, f32, tag::any), dnnl::memory::desc(y, f32, layout),
        strides, gaps, none, none);
  };
  // Channels in blocks of the path's vector width first, as PyTorch's oneDNN calls take them: the
  // direct JIT kernels, faster on one thread than the brgemm ones oneDNN 3.2 chooses on its own
  // (avx2 path, [1, 64, 56, 56] 3x3 -> 64: 1.97 against 2.14 ms; [8, 64, 56, 56] 16.9 against
  // 18.8); its own choice where the blocks have no such kernel (3 input channels). Never its
  // reference kernels (a 7x7 stride-2 stem: 6 s against 2): false, and OpenBLAS computes it.
  const tag blocks = KernelPath() == Isa::kAvx512 ? (deep ? tag::nCdhw16c : tag::nChw16c)
                                                  : (deep ? tag::nCdhw8c : tag::nChw8c);
  const auto reference = [](const dnnl::convolution_forward::primitive_desc& d) {
    return std::string(d.impl_info_str()).rfind("ref", 0) == 0;
  };
  dnnl::convolution_forward::primitive_desc pd = describe(blocks);
  if (reference(pd)) pd = describe(tag::any);
  if (reference(pd)) return nullptr;
  auto p = std::make_unique<PlannedConv>();
  p->conv = dnnl::convolution_forward(pd);
  p->cx = dnnl::memory(pd.src_desc(), engine);
  std::memset(p->cx.get_data_handle(), 0, pd.src_desc().get_size());
  // The input's elements inside the padded extent: [lo, hi) of x, at lo + p in the buffer.
  dims inner{s.n, s.groups * s.cxg}, from{0, 0}, to{0, 0};
  for (size_t i = lead; i < 3; ++i) {
    const int64_t lo = std::max<int64_t>(0, -s.p[i]), hi = std::min(s.x[i], s.padded[i] - s.p[i]);
    inner.push_back(std::max<int64_t>(0, hi - lo));
    from.push_back(lo);
    to.push_back(lo + s.p[i]);
  }
  if (dnnl::memory::desc(inner, f32, data).get_size() > 0) {
    p->x = dnnl::memory(ux.submemory_desc(inner, from), engine, nullptr);
    p->cx_inner = dnnl::memory(pd.src_desc().submemory_desc(inner, to), engine, p->cx.get_data_handle());
    p->to_x = dnnl::reorder(p->x, p->cx_inner);
  }
  p->w = dnnl::memory(uw, engine, nullptr);
  p->y = dnnl::memory(uy, engine, nullptr);
  if (pd.weights_desc() != uw) {
    p->cw = dnnl::memory(pd.weights_desc(), engine);
    p->to_w = dnnl::reorder(p->w, p->cw);
  }
  if (pd.dst_desc() != uy) {
    p->cy = dnnl::memory(pd.dst_desc(), engine);
    p->from_y = dnnl::reorder(p->cy, p->y);
  }
  for (const dnnl::memory* owned : {&p->cx, &p->cw, &p->cy}) {
    if (*owned) p->bytes += owned->get_desc().get_size();
  }
  p->route = Interned(std::string("onednn:") + pd.impl_info_str());
  return p;
}

// The calling thread's plans, the last used first: a model's few convolution shapes, each planned
// and its buffers zeroed once. A plan whose buffers are larger than kKeptBytes is dropped after its
// call (its zeros written again at the next): a few large layers must not hold a thread's memory.
constexpr size_t kKeptConvs = 4;
constexpr size_t kKeptBytes = size_t{64} << 20;

using KeptConvs = std::vector<std::pair<DnnlConvShape, std::unique_ptr<PlannedConv>>>;

KeptConvs& Kept() {
  thread_local KeptConvs kept;
  return kept;
}

// Null where oneDNN has only its reference kernels for the shape (kept too, as such).
PlannedConv* PlanFor(const DnnlConvShape& shape) {
  KeptConvs& kept = Kept();
  auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& p) { return SameShape(p.first, shape); });
  if (it == kept.end()) {
    kept.emplace(kept.begin(), shape, PlanConv(shape));
    if (kept.size() > kKeptConvs) kept.pop_back();
  } else {
    std::rotate(kept.begin(), it, it + 1);
  }
  return kept.front().second.get();
}

}  // namespace

bool DnnlConvolve(const DnnlConvShape& shape, const float* x, const float* w, float* y, const char** route,
                  std::string* why) {
  if (!Allowed(why)) return false;
  try {
    UsePoolThreads();
    PlannedConv* planned = PlanFor(shape);
    if (!planned) {
      *why = "oneDNN has only its reference kernels for this convolution";
      return false;
    }
    PlannedConv& p = *planned;
    const ForeignTeam team;
    thread_local dnnl::stream stream(Engine());
    if (p.x) {
      p.x.set_data_handle(const_cast<float*>(x));
      p.to_x.execute(stream, p.x, p.cx_inner);
    }
    p.w.set_data_handle(const_cast<float*>(w));
    p.y.set_data_handle(y);
    if (p.cw) p.to_w.execute(stream, p.w, p.cw);
    p.conv.execute(stream, {{DNNL_ARG_SRC, p.cx}, {DNNL_ARG_WEIGHTS, p.cw ? p.cw : p.w},
                            {DNNL_ARG_DST, p.cy ? p.cy : p.y}});
    if (p.cy) p.from_y.execute(stream, p.cy, p.y);
    stream.wait();
    *route = p.route;
    if (p.bytes > kKeptBytes) Kept().erase(Kept().begin());  // PlanFor put it first
    return true;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return false;
  }
}

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

bool DnnlConvolve(const DnnlConvShape&, const float*, const float*, float*, const char**, std::string* why) {
  *why = "this build has no oneDNN";
  return false;
}

}  // namespace aclsim

#endif  // ACLSIM_HAVE_ONEDNN
