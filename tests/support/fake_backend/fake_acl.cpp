// A tiny stand-in for the CANN libraries, for the loader's and the bindings' tests: the runtime,
// the nnopbase objects and one op (aclnnLeakyReluBackward, FLOAT only, same shapes, any strides).
// Built as libascendcl.so (libnnopbase.so and libopapi.so link to it) into a "CANN install"
// layout, plus libopapi_split.so holding an op symbol only the split library has. It checks what
// the bindings must get right: ranks, strides within the storage, live objects.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

struct aclTensor {
  std::vector<int64_t> dims, strides, storage;
  int64_t offset;
  aclDataType dtype;
  void* data;
};
struct aclScalar {
  unsigned char value[16];
  aclDataType dtype;
};
struct aclIntArray { std::vector<int64_t> v; };
struct aclFloatArray { std::vector<float> v; };
struct aclBoolArray { std::vector<bool> v; };
struct aclTensorList { std::vector<const aclTensor*> v; };
struct aclScalarList { std::vector<const aclScalar*> v; };
struct aclOpExecutor { std::function<void()> run; };

static std::atomic<long> g_objects{0}, g_buffers{0};
static thread_local std::string g_error;

extern "C" {
__attribute__((visibility("default"))) long fakeLiveObjects() { return g_objects.load(); }
__attribute__((visibility("default"))) long fakeLiveBuffers() { return g_buffers.load(); }

aclError aclInit(const char*) { return ACL_SUCCESS; }
aclError aclFinalize() { return ACL_SUCCESS; }
aclError aclrtSetDevice(int32_t d) {
  if (d < 0 || d > 1) { g_error = "device id out of range"; return ACL_ERROR_RT_INVALID_DEVICEID; }
  return ACL_SUCCESS;
}
aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
aclError aclrtCreateStream(aclrtStream* s) { *s = new int(0); return ACL_SUCCESS; }
aclError aclrtDestroyStream(aclrtStream s) { delete static_cast<int*>(s); return ACL_SUCCESS; }
// FAKE_ACL_FAULT=N: the N-th aclnnLeakyReluBackward launch "faults on the device": the next
// synchronisation fails as CANN's do, naming the kernel's op in its message only (CANN has no
// aclsimLastFault), so that the bindings' attribution by message is tested.
static std::atomic<long> g_launches{0};
static std::atomic<bool> g_fault_pending{false};
static aclError pending_fault() {
  if (!g_fault_pending.exchange(false)) return ACL_SUCCESS;
  g_error = "EZ9999: Inner Error! aclnnLeakyReluBackward: the AI Core raised an exception (fake device)";
  return ACL_ERROR_RT_AICORE_EXCEPTION;
}
aclError aclrtSynchronizeStream(aclrtStream) { return pending_fault(); }
// Streams run synchronously here: every queued copy is done when it returns, every event reached.
aclError aclrtSynchronizeDevice() { return pending_fault(); }
aclError aclrtCreateEvent(aclrtEvent* e) { *e = new int(0); return ACL_SUCCESS; }
aclError aclrtDestroyEvent(aclrtEvent e) { delete static_cast<int*>(e); return ACL_SUCCESS; }
aclError aclrtRecordEvent(aclrtEvent, aclrtStream) { return ACL_SUCCESS; }
aclError aclrtStreamWaitEvent(aclrtStream, aclrtEvent) { return ACL_SUCCESS; }
aclError aclrtSynchronizeEvent(aclrtEvent) { return ACL_SUCCESS; }
aclError aclrtQueryEventStatus(aclrtEvent, aclrtEventRecordedStatus* s) { *s = ACL_EVENT_RECORDED_STATUS_COMPLETE; return ACL_SUCCESS; }
aclError aclrtMalloc(void** p, size_t n, aclrtMemMallocPolicy) {
  if (n > (size_t(1) << 34)) { g_error = "out of device memory"; return ACL_ERROR_RT_MEMORY_ALLOCATION; }
  *p = std::malloc(n);
  ++g_buffers;
  return ACL_SUCCESS;
}
aclError aclrtFree(void* p) { std::free(p); --g_buffers; return ACL_SUCCESS; }
aclError aclrtMemcpy(void* d, size_t, const void* s, size_t n, aclrtMemcpyKind) { std::memcpy(d, s, n); return ACL_SUCCESS; }
aclError aclrtMemcpyAsync(void* d, size_t, const void* s, size_t n, aclrtMemcpyKind, aclrtStream) { std::memcpy(d, s, n); return ACL_SUCCESS; }
aclError aclrtMemset(void* d, size_t, int32_t v, size_t n) { std::memset(d, v, n); return ACL_SUCCESS; }
const char* aclGetRecentErrMsg() { return g_error.c_str(); }

aclTensor* aclCreateTensor(const int64_t* dims, uint64_t n, aclDataType dt, const int64_t* st, int64_t off, aclFormat,
                           const int64_t* sd, uint64_t sn, void* data) {
  ++g_objects;
  return new aclTensor{{dims, dims + n}, {st, st + n}, {sd, sd + sn}, off, dt, data};
}
aclScalar* aclCreateScalar(void* v, aclDataType dt) {
  auto* s = new aclScalar{{}, dt};
  std::memcpy(s->value, v, aclDataTypeSize(dt));
  ++g_objects;
  return s;
}
size_t aclDataTypeSize(aclDataType dt) {
  switch (dt) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_COMPLEX128: return 16;
    default: return 8;
  }
}
aclIntArray* aclCreateIntArray(const int64_t* v, uint64_t n) { ++g_objects; return new aclIntArray{{v, v + n}}; }
aclFloatArray* aclCreateFloatArray(const float* v, uint64_t n) { ++g_objects; return new aclFloatArray{{v, v + n}}; }
aclBoolArray* aclCreateBoolArray(const bool* v, uint64_t n) { ++g_objects; return new aclBoolArray{std::vector<bool>(v, v + n)}; }
aclTensorList* aclCreateTensorList(const aclTensor* const* v, uint64_t n) { ++g_objects; return new aclTensorList{{v, v + n}}; }
aclScalarList* aclCreateScalarList(const aclScalar* const* v, uint64_t n) { ++g_objects; return new aclScalarList{{v, v + n}}; }
aclnnStatus aclDestroyTensor(const aclTensor* t) { if (t) { --g_objects; delete t; } return 0; }
aclnnStatus aclDestroyScalar(const aclScalar* s) { if (s) { --g_objects; delete s; } return 0; }
aclnnStatus aclDestroyIntArray(const aclIntArray* a) { if (a) { --g_objects; delete a; } return 0; }
aclnnStatus aclDestroyFloatArray(const aclFloatArray* a) { if (a) { --g_objects; delete a; } return 0; }
aclnnStatus aclDestroyBoolArray(const aclBoolArray* a) { if (a) { --g_objects; delete a; } return 0; }
aclnnStatus aclDestroyTensorList(const aclTensorList* l) {
  if (!l) return 0;
  for (auto* t : l->v) aclDestroyTensor(t);  // CANN: the list owns its tensors
  --g_objects;
  delete l;
  return 0;
}
aclnnStatus aclDestroyScalarList(const aclScalarList* l) {
  if (!l) return 0;
  for (auto* s : l->v) aclDestroyScalar(s);
  --g_objects;
  delete l;
  return 0;
}
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* e) { if (e) { --g_objects; delete e; } return 0; }

static double scalar_value(const aclScalar* s) {
  switch (s->dtype) {
    case ACL_FLOAT: { float f; std::memcpy(&f, s->value, 4); return f; }
    case ACL_DOUBLE: { double d; std::memcpy(&d, s->value, 8); return d; }
    case ACL_INT64: { int64_t i; std::memcpy(&i, s->value, 8); return double(i); }
    case ACL_BOOL: return s->value[0];
    default: return 0;
  }
}

static bool inside(const aclTensor* t) {
  // Every addressed element lies within the storage: what a strided view must guarantee.
  int64_t last = t->offset;
  for (size_t i = 0; i < t->dims.size(); ++i) {
    if (t->dims[i] == 0) return true;
    last += (t->dims[i] - 1) * t->strides[i];
  }
  return t->storage.size() == 1 && last < t->storage[0] + (t->storage[0] == 0 ? 1 : 0);
}

aclnnStatus aclnnLeakyReluBackwardGetWorkspaceSize(const aclTensor* g, const aclTensor* x, const aclScalar* slope,
                                                   bool isResult, aclTensor* out, uint64_t* ws, aclOpExecutor** ex) {
  const char* names[] = {"gradOutput", "self", "negativeSlope", "out"};
  const void* ptrs[] = {g, x, slope, out};
  for (int i = 0; i < 4; ++i)
    if (!ptrs[i]) { g_error = std::string(names[i]) + " is nullptr"; return ACLNN_ERR_PARAM_NULLPTR; }
  const aclTensor* ts[] = {g, x, out};
  for (int i = 0; i < 3; ++i) {
    const char* n = i == 0 ? "gradOutput" : i == 1 ? "self" : "out";
    if (ts[i]->dtype != ACL_FLOAT) { g_error = std::string(n) + " dtype not supported (FLOAT only here)"; return ACLNN_ERR_PARAM_INVALID; }
    if (ts[i]->dims.size() > 8) { g_error = std::string(n) + " rank above 8"; return ACLNN_ERR_PARAM_INVALID; }
    if (ts[i]->dims != g->dims) { g_error = std::string(n) + " shape differs"; return ACLNN_ERR_PARAM_INVALID; }
    if (!inside(ts[i])) { g_error = std::string(n) + " view exceeds its storage"; return ACLNN_ERR_PARAM_INVALID; }
  }
  double s = scalar_value(slope);
  if (isResult && s < 0) { g_error = "negativeSlope must not be negative when selfIsResult"; return ACLNN_ERR_PARAM_INVALID; }
  *ws = 64;
  ++g_objects;
  *ex = new aclOpExecutor{[g, x, out, s] {
    std::vector<int64_t> idx(g->dims.size(), 0);
    int64_t n = 1;
    for (auto d : g->dims) n *= d;
    for (int64_t k = 0; k < n; ++k) {
      int64_t og = g->offset, ox = x->offset, oo = out->offset;
      for (size_t i = 0; i < idx.size(); ++i) { og += idx[i] * g->strides[i]; ox += idx[i] * x->strides[i]; oo += idx[i] * out->strides[i]; }
      float gv = static_cast<float*>(g->data)[og], xv = static_cast<float*>(x->data)[ox];
      static_cast<float*>(out->data)[oo] = xv > 0 ? gv : static_cast<float>(gv * s);
      for (int i = int(idx.size()) - 1; i >= 0; --i) { if (++idx[i] < g->dims[i]) break; idx[i] = 0; }
    }
  }};
  return ACLNN_SUCCESS;
}

aclnnStatus aclnnLeakyReluBackward(void* ws, uint64_t size, aclOpExecutor* ex, aclrtStream) {
  if (size && !ws) { g_error = "no workspace"; return ACLNN_ERR_PARAM_NULLPTR; }
  const char* fault_at = std::getenv("FAKE_ACL_FAULT");
  if (fault_at != nullptr && ++g_launches == std::atol(fault_at)) g_fault_pending = true;
  ex->run();
  delete ex;  // phase 2 consumes the executor
  --g_objects;
  return ACLNN_SUCCESS;
}
}

// ---- Probe ops: record what the bindings passed, for the tests of every argument kind --------

static std::string g_probe;  // JSON of the last probe call

template <class F> static void for_each_offset(const aclTensor* t, F f) {
  std::vector<int64_t> idx(t->dims.size(), 0);
  int64_t n = 1;
  for (auto d : t->dims) n *= d;
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = t->offset;
    for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * t->strides[i];
    f(off);
    for (int i = int(idx.size()) - 1; i >= 0; --i) { if (++idx[i] < t->dims[i]) break; idx[i] = 0; }
  }
}

static std::string tensor_json(const aclTensor* t) {
  if (!t) return "null";
  std::ostringstream o;
  o << "{\"dtype\":" << int(t->dtype) << ",\"shape\":[";
  for (size_t i = 0; i < t->dims.size(); ++i) o << (i ? "," : "") << t->dims[i];
  o << "],\"strides\":[";
  for (size_t i = 0; i < t->strides.size(); ++i) o << (i ? "," : "") << t->strides[i];
  o << "],\"offset\":" << t->offset << ",\"storage\":[";
  for (size_t i = 0; i < t->storage.size(); ++i) o << (i ? "," : "") << t->storage[i];
  o << "]}";
  return o.str();
}

static std::string scalar_json(const aclScalar* s) {
  if (!s) return "null";
  std::ostringstream o;
  o.precision(17);
  o << "{\"dtype\":" << int(s->dtype) << ",\"value\":";
  switch (s->dtype) {
    case ACL_FLOAT: { float f; std::memcpy(&f, s->value, 4); o << f; break; }
    case ACL_DOUBLE: { double d; std::memcpy(&d, s->value, 8); o << d; break; }
    case ACL_INT64: { int64_t i; std::memcpy(&i, s->value, 8); o << i; break; }
    case ACL_INT32: { int32_t i; std::memcpy(&i, s->value, 4); o << i; break; }
    case ACL_BOOL: o << (s->value[0] ? "true" : "false"); break;
    default: { uint16_t h; std::memcpy(&h, s->value, 2); o << "\"raw16:" << h << "\""; break; }
  }
  o << "}";
  return o.str();
}

extern "C" {
__attribute__((visibility("default"))) const char* fakeLastProbe() { return g_probe.c_str(); }

aclnnStatus aclnnBindingsProbeGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, const aclFloatArray* weights,
                                               const aclBoolArray* mask, const aclTensorList* tensors,
                                               const aclScalarList* scalars, const char* mode, aclDataType dtype,
                                               int32_t groups, int8_t small, double eps, bool flag, aclTensor* out,
                                               uint64_t* ws, aclOpExecutor** ex) {
  std::ostringstream o;
  o.precision(17);
  o << "{\"self\":" << tensor_json(self) << ",\"dims\":";
  if (dims) { o << "["; for (size_t i = 0; i < dims->v.size(); ++i) o << (i ? "," : "") << dims->v[i]; o << "]"; } else o << "null";
  o << ",\"weights\":";
  if (weights) { o << "["; for (size_t i = 0; i < weights->v.size(); ++i) o << (i ? "," : "") << weights->v[i]; o << "]"; } else o << "null";
  o << ",\"mask\":";
  if (mask) { o << "["; for (size_t i = 0; i < mask->v.size(); ++i) o << (i ? "," : "") << (mask->v[i] ? "true" : "false"); o << "]"; } else o << "null";
  o << ",\"tensors\":";
  if (tensors) { o << "["; for (size_t i = 0; i < tensors->v.size(); ++i) o << (i ? "," : "") << tensor_json(tensors->v[i]); o << "]"; } else o << "null";
  o << ",\"scalars\":";
  if (scalars) { o << "["; for (size_t i = 0; i < scalars->v.size(); ++i) o << (i ? "," : "") << scalar_json(scalars->v[i]); o << "]"; } else o << "null";
  o << ",\"mode\":" << (mode ? "\"" + std::string(mode) + "\"" : std::string("null")) << ",\"dtype\":" << int(dtype)
    << ",\"groups\":" << groups << ",\"small\":" << int(small) << ",\"eps\":" << eps << ",\"flag\":" << (flag ? "true" : "false")
    << ",\"out\":" << tensor_json(out) << "}";
  g_probe = o.str();
  *ws = 0;
  ++g_objects;
  *ex = new aclOpExecutor{[] {}};
  return ACLNN_SUCCESS;
}
aclnnStatus aclnnBindingsProbe(void*, uint64_t, aclOpExecutor* ex, aclrtStream) { ex->run(); delete ex; --g_objects; return 0; }

// A gate that the next probe-fill call waits at (in phase 1 or phase 2) until another thread opens
// it, for at most two seconds: the test of the bindings releasing the GIL while the library works
// (a caller holding the GIL would keep the opener from ever running).
static std::mutex g_gate_mutex;
static std::condition_variable g_gate_cv;
static int g_gate_phase = 0;      // 0: no gate; 1 or 2: the phase that waits
static bool g_gate_waiting = false, g_gate_open = false;

static bool pass_gate(int phase) {
  std::unique_lock<std::mutex> lock(g_gate_mutex);
  if (g_gate_phase != phase) return true;
  g_gate_phase = 0;
  g_gate_waiting = true;
  bool opened = g_gate_cv.wait_for(lock, std::chrono::seconds(2), [] { return g_gate_open; });
  g_gate_waiting = false;
  g_gate_open = false;
  if (!opened) g_error = "the gate was never opened: the caller held the GIL";
  return opened;
}

__attribute__((visibility("default"))) void fakeArmGate(int phase) {
  std::lock_guard<std::mutex> lock(g_gate_mutex);
  g_gate_phase = phase;
}
__attribute__((visibility("default"))) int fakeGateWaiting() {
  std::lock_guard<std::mutex> lock(g_gate_mutex);
  return g_gate_waiting;
}
__attribute__((visibility("default"))) void fakeOpenGate() {
  std::lock_guard<std::mutex> lock(g_gate_mutex);
  g_gate_open = true;
  g_gate_cv.notify_all();
}

aclnnStatus aclnnInplaceProbeFillGetWorkspaceSize(aclTensor* selfRef, const aclScalar* value, uint64_t* ws, aclOpExecutor** ex) {
  if (!pass_gate(1)) return ACLNN_ERR_RUNTIME_ERROR;
  if (!selfRef || !value) { g_error = "selfRef or value is nullptr"; return ACLNN_ERR_PARAM_NULLPTR; }
  if (selfRef->dtype != ACL_FLOAT) { g_error = "selfRef: FLOAT only"; return ACLNN_ERR_PARAM_INVALID; }
  const float v = static_cast<float>(scalar_value(value));
  *ws = 0;
  ++g_objects;
  *ex = new aclOpExecutor{[selfRef, v] { for_each_offset(selfRef, [&](int64_t o) { static_cast<float*>(selfRef->data)[o] += v; }); }};
  return ACLNN_SUCCESS;
}
aclnnStatus aclnnInplaceProbeFill(void*, uint64_t, aclOpExecutor* ex, aclrtStream) {
  const bool passed = pass_gate(2);
  ex->run();
  delete ex;
  --g_objects;
  return passed ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
}

aclnnStatus aclnnProbeSplitGetWorkspaceSize(const aclTensor* self, aclTensorList* out, uint64_t* ws, aclOpExecutor** ex) {
  if (!self || !out) { g_error = "self or out is nullptr"; return ACLNN_ERR_PARAM_NULLPTR; }
  for (auto* t : out->v)
    if (!t || t->dims != self->dims || t->dtype != ACL_FLOAT || self->dtype != ACL_FLOAT) { g_error = "out: each like self"; return ACLNN_ERR_PARAM_INVALID; }
  *ws = 0;
  ++g_objects;
  *ex = new aclOpExecutor{[self, out] {
    for (size_t k = 0; k < out->v.size(); ++k) {
      std::vector<float> values;
      for_each_offset(self, [&](int64_t o) { values.push_back(static_cast<float*>(self->data)[o] * float(k + 1)); });
      size_t i = 0;
      for_each_offset(out->v[k], [&](int64_t o) { static_cast<float*>(out->v[k]->data)[o] = values[i++]; });
    }
  }};
  return ACLNN_SUCCESS;
}
aclnnStatus aclnnProbeSplit(void*, uint64_t, aclOpExecutor* ex, aclrtStream) { ex->run(); delete ex; --g_objects; return 0; }
}

extern "C" {
// Two outputs: out1 = self, out2 = 2 * self (FLOAT, any strides).
aclnnStatus aclnnProbeTwoGetWorkspaceSize(const aclTensor* self, aclTensor* out1, aclTensor* out2, uint64_t* ws,
                                          aclOpExecutor** ex) {
  if (!self || !out1 || !out2) { g_error = "self, out1 or out2 is nullptr"; return ACLNN_ERR_PARAM_NULLPTR; }
  if (out1->dims != self->dims || out2->dims != self->dims) { g_error = "out1/out2: shape of self"; return ACLNN_ERR_PARAM_INVALID; }
  *ws = 0;
  ++g_objects;
  *ex = new aclOpExecutor{[self, out1, out2] {
    std::vector<float> values;
    for_each_offset(self, [&](int64_t o) { values.push_back(static_cast<float*>(self->data)[o]); });
    size_t i = 0;
    for_each_offset(out1, [&](int64_t o) { static_cast<float*>(out1->data)[o] = values[i++]; });
    i = 0;
    for_each_offset(out2, [&](int64_t o) { static_cast<float*>(out2->data)[o] = 2 * values[i++]; });
  }};
  return ACLNN_SUCCESS;
}
aclnnStatus aclnnProbeTwo(void*, uint64_t, aclOpExecutor* ex, aclrtStream) { ex->run(); delete ex; --g_objects; return 0; }
}
