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
  DnnlConvPass pass = DnnlConvPass::kForward;
  dnnl::primitive conv;
  dnnl::memory x, w, y;     // the user's buffers (plain; x the part of the input the outputs read)
  dnnl::memory cx, cw, cy;  // the primitive's (cx: the padded input, or its gradient)
  dnnl::memory cx_inner;    // cx's part where x goes
  dnnl::reorder to_x, from_x, to_w, from_w, to_y, from_y;
  bool x_beyond = false;  // x has elements no output reads (outside the padded extent)
  int64_t x_elements = 0;
  size_t bytes = 0;       // of the buffers it owns (cx, cw, cy)
  const char* route = "onednn";
};

struct ConvKey {
  DnnlConvShape shape;
  DnnlConvPass pass;
};

bool SameKey(const ConvKey& a, const ConvKey& b) {
  return a.pass == b.pass && std::memcmp(&a.shape, &b.shape, sizeof a.shape) == 0;
}

std::unique_ptr<PlannedConv> PlanConv(const DnnlConvShape& s, DnnlConvPass pass) {
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
  // The pass's primitive over the padded extent with no padding of oneDNN's own (the backward ones
  // planned from the forward's, as oneDNN asks).
  const auto describe = [&](tag layout) -> dnnl::primitive_desc {
    const dnnl::memory::desc mx(padded, f32, layout), mw(w, f32, tag::any), my(y, f32, layout);
    const auto kind = pass == DnnlConvPass::kForward ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
    const dnnl::convolution_forward::primitive_desc forward(engine, kind, dnnl::algorithm::convolution_direct, mx, mw,
                                                             my, strides, gaps, none, none);
    switch (pass) {
      case DnnlConvPass::kInputGrad:
        return dnnl::convolution_backward_data::primitive_desc(engine, dnnl::algorithm::convolution_direct, mx, mw, my,
                                                               strides, gaps, none, none, forward);
      case DnnlConvPass::kWeightGrad:
        return dnnl::convolution_backward_weights::primitive_desc(engine, dnnl::algorithm::convolution_direct, mx, mw,
                                                                  my, strides, gaps, none, none, forward);
      default: return forward;
    }
  };
  // Channels in blocks of the path's vector width first, as PyTorch's oneDNN calls take them: the
  // direct JIT kernels, faster on one thread than the brgemm ones oneDNN 3.2 chooses on its own
  // (avx2 path, [1, 64, 56, 56] 3x3 -> 64: 1.97 against 2.14 ms; [8, 64, 56, 56] 16.9 against
  // 18.8); its own choice where the blocks have no such kernel (3 input channels). Never its
  // reference kernels (a 7x7 stride-2 stem: 6 s against 2): false, and OpenBLAS computes it. Nor,
  // for a gradient, its im2col and GEMM ("x64:gemm:jit", what the baseline path's SSE4.1 gets): one
  // thread's CPU time, [8, 64, 56, 56] 3x3 -> 64, 63.7 ms for the input's gradient and 67.5 for the
  // weight's against 52.8 and 53.6 on OpenBLAS.
  const tag blocks = KernelPath() == Isa::kAvx512 ? (deep ? tag::nCdhw16c : tag::nChw16c)
                                                  : (deep ? tag::nCdhw8c : tag::nChw8c);
  const auto unwanted = [pass](const dnnl::primitive_desc& d) {
    const std::string impl = d.impl_info_str();
    return impl.rfind("ref", 0) == 0 || (pass != DnnlConvPass::kForward && impl.find("gemm") != std::string::npos);
  };
  dnnl::primitive_desc pd = describe(blocks);
  if (unwanted(pd)) pd = describe(tag::any);
  if (unwanted(pd)) return nullptr;
  const bool input_grad = pass == DnnlConvPass::kInputGrad, weight_grad = pass == DnnlConvPass::kWeightGrad;
  const dnnl::memory::desc px = input_grad ? pd.diff_src_desc() : pd.src_desc();
  const dnnl::memory::desc pw = weight_grad ? pd.diff_weights_desc() : pd.weights_desc();
  const dnnl::memory::desc py = pass == DnnlConvPass::kForward ? pd.dst_desc() : pd.diff_dst_desc();
  auto p = std::make_unique<PlannedConv>();
  p->pass = pass;
  p->conv = dnnl::primitive(pd);
  p->cx = dnnl::memory(px, engine);
  std::memset(p->cx.get_data_handle(), 0, px.get_size());
  // The input's elements inside the padded extent: [lo, hi) of x, at lo + p in the buffer.
  dims inner{s.n, s.groups * s.cxg}, from{0, 0}, to{0, 0};
  for (size_t i = lead; i < 3; ++i) {
    const int64_t lo = std::max<int64_t>(0, -s.p[i]), hi = std::min(s.x[i], s.padded[i] - s.p[i]);
    inner.push_back(std::max<int64_t>(0, hi - lo));
    from.push_back(lo);
    to.push_back(lo + s.p[i]);
  }
  p->x_beyond = inner != x;
  p->x_elements = s.n * s.groups * s.cxg * s.x[0] * s.x[1] * s.x[2];
  if (dnnl::memory::desc(inner, f32, data).get_size() > 0) {
    p->x = dnnl::memory(ux.submemory_desc(inner, from), engine, nullptr);
    p->cx_inner = dnnl::memory(px.submemory_desc(inner, to), engine, p->cx.get_data_handle());
    if (input_grad) {
      p->from_x = dnnl::reorder(p->cx_inner, p->x);
    } else {
      p->to_x = dnnl::reorder(p->x, p->cx_inner);
    }
  }
  p->w = dnnl::memory(uw, engine, nullptr);
  p->y = dnnl::memory(uy, engine, nullptr);
  if (pw != uw) {
    p->cw = dnnl::memory(pw, engine);
    if (weight_grad) {
      p->from_w = dnnl::reorder(p->cw, p->w);
    } else {
      p->to_w = dnnl::reorder(p->w, p->cw);
    }
  }
  if (py != uy) {
    p->cy = dnnl::memory(py, engine);
    if (pass == DnnlConvPass::kForward) {
      p->from_y = dnnl::reorder(p->cy, p->y);
    } else {
      p->to_y = dnnl::reorder(p->y, p->cy);
    }
  }
  for (const dnnl::memory* owned : {&p->cx, &p->cw, &p->cy}) {
    if (*owned) p->bytes += owned->get_desc().get_size();
  }
  p->route = Interned(std::string("onednn:") + pd.impl_info_str());
  return p;
}

// The calling thread's plans, the last used first: a model's few convolution shapes and passes,
// each planned and its buffers zeroed once. A plan whose buffers are larger than kKeptBytes is
// dropped after its call (its zeros written again at the next): a few large layers must not hold a
// thread's memory.
constexpr size_t kKeptConvs = 6;
constexpr size_t kKeptBytes = size_t{64} << 20;

using KeptConvs = std::vector<std::pair<ConvKey, std::unique_ptr<PlannedConv>>>;

KeptConvs& Kept() {
  thread_local KeptConvs kept;
  return kept;
}

// Null where oneDNN has no kernel for the shape that PlanConv takes (kept too, as such).
PlannedConv* PlanFor(const DnnlConvShape& shape, DnnlConvPass pass) {
  KeptConvs& kept = Kept();
  const ConvKey key{shape, pass};
  auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& p) { return SameKey(p.first, key); });
  if (it == kept.end()) {
    kept.emplace(kept.begin(), key, PlanConv(shape, pass));
    if (kept.size() > kKeptConvs) kept.pop_back();
  } else {
    std::rotate(kept.begin(), it, it + 1);
  }
  return kept.front().second.get();
}

}  // namespace

bool DnnlConvolve(const DnnlConvShape& shape, DnnlConvPass pass, float* x, float* w, float* y, const char** route,
                  std::string* why) {
  if (!Allowed(why)) return false;
  try {
    UsePoolThreads();
    PlannedConv* planned = PlanFor(shape, pass);
    if (!planned) {
      *why = "oneDNN has only kernels slower than OpenBLAS's route for this convolution";
      return false;
    }
    PlannedConv& p = *planned;
    const ForeignTeam team;
    thread_local dnnl::stream stream(Engine());
    if (p.x) p.x.set_data_handle(x);
    p.w.set_data_handle(w);
    p.y.set_data_handle(y);
    if (p.to_x) p.to_x.execute(stream, p.x, p.cx_inner);
    if (p.to_w) p.to_w.execute(stream, p.w, p.cw);
    if (p.to_y) p.to_y.execute(stream, p.y, p.cy);
    const dnnl::memory& cw = p.cw ? p.cw : p.w;
    const dnnl::memory& cy = p.cy ? p.cy : p.y;
    switch (p.pass) {
      case DnnlConvPass::kForward:
        p.conv.execute(stream, {{DNNL_ARG_SRC, p.cx}, {DNNL_ARG_WEIGHTS, cw}, {DNNL_ARG_DST, cy}});
        break;
      case DnnlConvPass::kInputGrad:
        p.conv.execute(stream, {{DNNL_ARG_DIFF_SRC, p.cx}, {DNNL_ARG_WEIGHTS, cw}, {DNNL_ARG_DIFF_DST, cy}});
        break;
      case DnnlConvPass::kWeightGrad:
        p.conv.execute(stream, {{DNNL_ARG_SRC, p.cx}, {DNNL_ARG_DIFF_WEIGHTS, cw}, {DNNL_ARG_DIFF_DST, cy}});
        break;
    }
    if (p.from_y) p.from_y.execute(stream, p.cy, p.y);
    if (p.from_w) p.from_w.execute(stream, p.cw, p.w);
    if (p.pass == DnnlConvPass::kInputGrad) {
      // The input's elements no output reads have a gradient of 0; the others are the padded
      // gradient's interior.
      if (p.x_beyond) {
        stream.wait();
        std::memset(x, 0, static_cast<size_t>(p.x_elements) * sizeof(float));
      }
      if (p.from_x) p.from_x.execute(stream, p.cx_inner, p.x);
    }
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

bool DnnlConvolve(const DnnlConvShape&, DnnlConvPass, float*, float*, float*, const char**, std::string* why) {
  *why = "this build has no oneDNN";
  return false;
}

}  // namespace aclsim

#endif  // ACLSIM_HAVE_ONEDNN
