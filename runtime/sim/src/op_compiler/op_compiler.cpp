// libacl_op_compiler: the process's operator compile options, and single operators run by type name
// (aclopCompileAndExecute), the path framework backends take for ops that have no aclnn API.
//
// Compile options are kept and reported back (torch_npu reads ACL_OP_JIT_COMPILE and
// ACL_PRECISION_MODE to choose how to run ops); ACL_OP_JIT_COMPILE's default is the simulated chip's. An operator run by type name goes to the aclop
// bridge (bridge.h, ops.cpp): Identity is here (a copy between plain layouts, and the transforms
// between a plain layout and NC1HWC0 or FRACTAL_NZ); the other modelled types run the simulator's
// aclnn kernels; every other type is ACL_ERROR_OP_NOT_FOUND naming it, never success (on a thread
// running another thread's operators, as torch_npu's task queue does, the refusal is held and
// returned by a later call: CheckOperator).
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "aclnn_sim/entry.h"
#include "ascendcl/op_objects.h"
#include "op_compiler/bridge.h"
#include "common/internal.h"

namespace {

struct CompileOptions {
  std::mutex mutex;
  std::map<int, std::string> values;  // what aclSetCompileopt set; an option never set has its default
};

CompileOptions& Options() {
  static CompileOptions* options = new CompileOptions;  // never destroyed: called during exit
  return *options;
}

// ACL_OP_JIT_COMPILE before anyone sets it: "enable" (operators are compiled online, i.e. run by type
// name through aclop) on Atlas training (Ascend910) and Atlas inference (Ascend310P) chips, "disable"
// (binary aclnn kernels) on Atlas A2/A3 and the others. These values are CANN's documented defaults
// (aclSetCompileopt's page, which is not on this machine); what is here agrees with them and says why
// they matter, from torch_npu 2.13.0 itself:
// - at its first device use torch_npu reads this value with aclGetCompileopt(ACL_OP_JIT_COMPILE) and
//   keeps it as its "jitCompileInit" option, falling back to "disable" only when CANN answers nothing
//   (libtorch_npu.so's InitializeJitCompilationMode: +0x586b660 calls aclGetCompileopt, its caller at
//   +0x586b910 logs "[PTA]:Set jitCompileInit option to %s" or "... to default value: disable"; seen
//   under gdb on the simulator: one aclGetCompileopt(10) at the first device use, no
//   aclSetCompileopt); torch.npu.set_compile_mode(jit_compile=...)
//   overrides it (torch_npu/npu/npu_config.py:98-102, option "jitCompile") and reaches
//   aclSetCompileopt when the first aclop operator runs (LazyAclSetCompileopt, LazyInitAclops.h:14);
// - op-plugin sends an aten op that has both routes (op_plugin_functions.yaml: add.Tensor has
//   `acl_op` and `op_api`, lines 909-911) to aclnn only when JIT is disabled and every input is in a
//   plain format, else to acl_op (aclop by type name): each dispatch logs "[PTA]:add exec with jit
//   compile: %d, self is internal format: %d"; op_api kernels test env::CheckJitDisable() themselves
//   (ConvolutionBackwardKernelNpuOpApi.cpp:96-103), and so does an aclop command (OpParamMaker.h:294);
// - its per-op documentation gives the JIT route to Atlas training and inference series and the
//   aclnn route to A2/A3 (torch_npu/_op_plugin_docs.py:3548-3566, npu_rotary_mul), and with JIT
//   enabled torch_npu casts a BatchNorm's parameters to NC1HWC0 when the module moves to the device
//   (torch_npu/utils/_module.py:110).
// So on Ascend910/Ascend310P a plain tensor's `x + x` is the aclop Add, as on those devices, not
// aclnnAdd (whose page leaves Ascend310P out).
// The per-chip values are the chip table's (gen.ir.Soc.jit_compile, rendered as kSocJitCompileByDefault).
bool JitCompileByDefault(aclsim::Soc soc) { return aclsim::kSocJitCompileByDefault[static_cast<int>(soc)]; }

// The value an option has now: the one set, else its default (ACL_OP_JIT_COMPILE's follows the chip,
// also when aclsimSetSoc changes it); false with the message set when the chip cannot be resolved.
bool CurrentValue(aclCompileOpt opt, std::string* value) {
  {
    std::lock_guard<std::mutex> lock(Options().mutex);
    auto it = Options().values.find(opt);
    if (it != Options().values.end()) {
      *value = it->second;
      return true;
    }
  }
  value->clear();
  if (opt != ACL_OP_JIT_COMPILE) return true;
  aclsim::Soc soc;
  if (!aclsim::SimulatedSoc(&soc)) return false;
  *value = JitCompileByDefault(soc) ? "enable" : "disable";
  return true;
}

bool KnownOption(aclCompileOpt opt) { return opt >= ACL_PRECISION_MODE && opt <= ACL_OP_DEBUG_OPTION; }

struct GraphDumpOption {
  int unused = 0;
};

using aclsim::aclop::Elements;
using aclsim::aclop::PlainFormat;

// The NCHW shape a tensor of at most four dimensions is stored as in NC1HWC0: torch_npu's format
// helper (InferShapeLessTo4, CANN's reshape types C, CH, CHW) reads [C] as [1, C, 1, 1], [C, H] as
// [1, C, H, 1] and [C, H, W] as [1, C, H, W], so the first dimension of a short tensor is its channels.
std::vector<int64_t> NchwOf(const std::vector<int64_t>& plain) {
  switch (plain.size()) {
    case 0: return {1, 1, 1, 1};
    case 1: return {1, plain[0], 1, 1};
    case 2: return {1, plain[0], plain[1], 1};
    case 3: return {1, plain[0], plain[1], plain[2]};
    default: return plain;
  }
}

// A private layout's storage order, as CANN's TransData lays it out: for each element of the plain
// (logical) tensor, in row-major order, the element offset where the private storage holds it; the
// storage's other elements are padding (zeros). NC1HWC0 holds an NCHW tensor [N, C, H, W] as
// [N, ceil(C/C0), H, W, C0] (a shorter tensor as NchwOf reads it); FRACTAL_NZ holds [..., M, N] as [..., ceil(N/N0), ceil(M/M0), M0, N0].
// Empty when the two shapes are not such a pair (*why says how).
std::vector<int64_t> PrivateOffsets(aclFormat plain_format, const std::vector<int64_t>& plain, aclFormat private_format,
                                    const std::vector<int64_t>& storage, std::string* why) {
  std::vector<int64_t> offsets;
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (private_format == ACL_FORMAT_NC1HWC0) {
    if (plain.size() > 4 || (plain_format != ACL_FORMAT_NCHW && plain_format != ACL_FORMAT_ND)) {
      *why = "NC1HWC0 is modelled from an NCHW (or ND) tensor of at most 4 dimensions, not " +
             std::to_string(plain.size()) + "-d format " + std::to_string(static_cast<int>(plain_format));
      return offsets;
    }
    const std::vector<int64_t> nchw = NchwOf(plain);
    const int64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
    if (storage.size() != 5 || storage[4] <= 0 || storage[0] != n || storage[2] != h || storage[3] != w ||
        storage[1] != ceil_div(c, storage[4])) {
      *why = "the NC1HWC0 storage shape " + aclsim::aclop::ListText(storage) + " is not [N, ceil(C/C0), H, W, C0] of " +
             aclsim::aclop::ListText(plain) + " read as NCHW " + aclsim::aclop::ListText(nchw);
      return offsets;
    }
    const int64_t c1 = storage[1], c0 = storage[4];
    offsets.reserve(static_cast<size_t>(n * c * h * w));
    for (int64_t in = 0; in < n; ++in)
      for (int64_t ic = 0; ic < c; ++ic)
        for (int64_t ih = 0; ih < h; ++ih)
          for (int64_t iw = 0; iw < w; ++iw) offsets.push_back((((in * c1 + ic / c0) * h + ih) * w + iw) * c0 + ic % c0);
    return offsets;
  }
  if (private_format == ACL_FORMAT_FRACTAL_NZ) {
    // torch_npu's format helper (InferShapeNDToNZ) reads a 0-d tensor as [1, 1] and a 1-d [n] as the
    // column [n, 1] (a 1-d reduction's output, torch.logsumexp(x, -1) of an NZ x, is stored so).
    std::vector<int64_t> logical = plain;
    while (logical.size() < 2) logical.push_back(1);
    if (logical.size() < 2 || storage.size() != logical.size() + 2 || storage[storage.size() - 1] <= 0 ||
        storage[storage.size() - 2] <= 0) {
      *why = "the FRACTAL_NZ storage shape " + aclsim::aclop::ListText(storage) + " is not [..., N1, M1, M0, N0] of the [..., M, N] shape " +
             aclsim::aclop::ListText(plain);
      return offsets;
    }
    const size_t batch_rank = logical.size() - 2;
    int64_t batch = 1;
    for (size_t i = 0; i < batch_rank; ++i) {
      if (storage[i] != logical[i]) {
        *why = "the FRACTAL_NZ storage's batch dimensions differ from the tensor's";
        return offsets;
      }
      batch *= logical[i];
    }
    const int64_t m = logical[batch_rank], n = logical[batch_rank + 1];
    const int64_t n1 = storage[batch_rank], m1 = storage[batch_rank + 1], m0 = storage[batch_rank + 2],
                  n0 = storage[batch_rank + 3];
    if (n1 != ceil_div(n, n0) || m1 != ceil_div(m, m0)) {
      *why = "the FRACTAL_NZ storage shape " + aclsim::aclop::ListText(storage) +
             " is not [..., ceil(N/N0), ceil(M/M0), M0, N0] of the [..., M, N] shape " + aclsim::aclop::ListText(plain);
      return offsets;
    }
    offsets.reserve(static_cast<size_t>(batch * m * n));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t im = 0; im < m; ++im)
        for (int64_t in = 0; in < n; ++in)
          offsets.push_back(b * n1 * m1 * m0 * n0 + ((in / n0 * m1 + im / m0) * m0 + im % m0) * n0 + in % n0);
    return offsets;
  }
  if (private_format == ACL_FORMAT_FRACTAL_Z) {
    // A convolution's weight [N, C, H, W] (torch_npu casts an nn.Conv2d's weight so on Ascend910) as
    // [ceil(C/C0) * H * W, ceil(N/N0), N0, C0]: fractals of N0 output by C0 input channels, for each
    // input-channel group and kernel position (torch_npu's InferShapeNCHWToFZ).
    if (plain.size() != 4 || (plain_format != ACL_FORMAT_NCHW && plain_format != ACL_FORMAT_ND)) {
      *why = "FRACTAL_Z is modelled from a 4-d NCHW weight, not " + std::to_string(plain.size()) + "-d format " +
             std::to_string(static_cast<int>(plain_format));
      return offsets;
    }
    const int64_t n = plain[0], c = plain[1], h = plain[2], w = plain[3];
    if (storage.size() != 4 || storage[2] <= 0 || storage[3] <= 0 || storage[1] != ceil_div(n, storage[2]) ||
        storage[0] != ceil_div(c, storage[3]) * h * w) {
      *why = "the FRACTAL_Z storage shape " + aclsim::aclop::ListText(storage) +
             " is not [ceil(C/C0) * H * W, ceil(N/N0), N0, C0] of the NCHW weight " + aclsim::aclop::ListText(plain);
      return offsets;
    }
    const int64_t n1 = storage[1], n0 = storage[2], c0 = storage[3];
    offsets.reserve(static_cast<size_t>(n * c * h * w));
    for (int64_t in = 0; in < n; ++in)
      for (int64_t ic = 0; ic < c; ++ic)
        for (int64_t ih = 0; ih < h; ++ih)
          for (int64_t iw = 0; iw < w; ++iw)
            offsets.push_back(((((ic / c0 * h + ih) * w + iw) * n1 + in / n0) * n0 + in % n0) * c0 + ic % c0);
    return offsets;
  }
  if (private_format == ACL_FORMAT_NDC1HWC0) {
    // An NCDHW tensor [N, C, D, H, W] as [N, D, ceil(C/C0), H, W, C0] (torch_npu gives Conv3D's and
    // MaxPool3D's output so on Ascend910).
    if (plain.size() != 5 || (plain_format != ACL_FORMAT_NCDHW && plain_format != ACL_FORMAT_ND)) {
      *why = "NDC1HWC0 is modelled from a 5-d NCDHW tensor, not " + std::to_string(plain.size()) + "-d format " +
             std::to_string(static_cast<int>(plain_format));
      return offsets;
    }
    const int64_t n = plain[0], c = plain[1], d = plain[2], h = plain[3], w = plain[4];
    if (storage.size() != 6 || storage[5] <= 0 || storage[0] != n || storage[1] != d || storage[3] != h || storage[4] != w ||
        storage[2] != ceil_div(c, storage[5])) {
      *why = "the NDC1HWC0 storage shape " + aclsim::aclop::ListText(storage) + " is not [N, D, ceil(C/C0), H, W, C0] of " +
             aclsim::aclop::ListText(plain);
      return offsets;
    }
    const int64_t c1 = storage[2], c0 = storage[5];
    offsets.reserve(static_cast<size_t>(n * c * d * h * w));
    for (int64_t in = 0; in < n; ++in)
      for (int64_t ic = 0; ic < c; ++ic)
        for (int64_t id = 0; id < d; ++id)
          for (int64_t ih = 0; ih < h; ++ih)
            for (int64_t iw = 0; iw < w; ++iw)
              offsets.push_back(((((in * d + id) * c1 + ic / c0) * h + ih) * w + iw) * c0 + ic % c0);
    return offsets;
  }
  *why = "a private layout other than NC1HWC0, NDC1HWC0, FRACTAL_NZ and FRACTAL_Z";
  return offsets;
}

// One transform between a plain and a private layout, run in stream order by aclrtLaunchHostFunc
// (device memory is host memory in the simulator).
struct LayoutTransform {
  const char* from = nullptr;
  char* to = nullptr;
  size_t item = 0;
  size_t to_bytes = 0;
  bool into_private = false;  // plain -> private: the padding is zeroed first
  std::vector<int64_t> offsets;

  static void Run(void* self) {
    std::unique_ptr<LayoutTransform> t(static_cast<LayoutTransform*>(self));
    if (t->into_private) std::memset(t->to, 0, t->to_bytes);
    for (size_t i = 0; i < t->offsets.size(); ++i) {
      const size_t stored = static_cast<size_t>(t->offsets[i]) * t->item, plain = i * t->item;
      if (t->into_private) std::memcpy(t->to + stored, t->from + plain, t->item);
      else std::memcpy(t->to + plain, t->from + stored, t->item);
    }
  }
};

}  // namespace

namespace aclsim::aclop {

// Identity: y = x, the operator framework backends run to copy a tensor into a fresh one, and to
// cast it between layouts (torch_npu's npu_format_cast, create_common_tensor in its tests, and the
// copy back to the host of a tensor in a private layout). Between plain layouts of the same shape
// and dtype it is a copy on the stream; between a plain layout and NC1HWC0 or FRACTAL_NZ it moves
// every element to where the private storage holds it; any other pair says it is not modelled.
aclError RunIdentity(const OpCall& call) {
  using aclsim::Fail;
  const std::string where = call.Where();
  const char* api = call.api.c_str();
  const aclrtStream stream = call.stream;
  if (call.inputs.size() != 1 || call.outputs.size() != 1) return Fail(ACL_ERROR_INVALID_PARAM, where + ": takes one input and one output");
  const auto &x = call.inputs[0].desc, &y = call.outputs[0].desc;
  const auto &from = call.inputs[0].buffer, &to = call.outputs[0].buffer;
  if (x->dtype != y->dtype) return Fail(ACL_ERROR_INVALID_PARAM, where + ": the output's dtype differs from the input's");
  auto dynamic = [](const std::vector<int64_t>& dims) {
    return std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; });
  };
  if (dynamic(x->dims) || dynamic(y->dims)) return Fail(ACL_ERROR_INVALID_PARAM, where + ": an unknown (dynamic) dimension");
  const size_t item = aclDataTypeSize(x->dtype);
  if (item == 0) return Fail(ACL_ERROR_INVALID_PARAM, where + ": a dtype of no fixed element size");
  const size_t x_bytes = static_cast<size_t>(Elements(x->dims)) * item, y_bytes = static_cast<size_t>(Elements(y->dims)) * item;
  if (x_bytes > from->size || y_bytes > to->size) {
    return Fail(ACL_ERROR_INVALID_PARAM, where + ": the tensors' bytes do not fit their data buffers");
  }
  // The same layout on both sides: a copy on the stream.
  auto copy = [&]() -> aclError {
    if (x_bytes == 0 || from->data == to->data) return ACL_SUCCESS;
    return aclrtMemcpyAsync(to->data, to->size, from->data, x_bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
  };
  const bool x_plain = PlainFormat(x->format), y_plain = PlainFormat(y->format);
  if (x_plain && y_plain) {
    if (x->dims != y->dims) return Fail(ACL_ERROR_INVALID_PARAM, where + ": the output's shape differs from the input's");
    return copy();
  }
  const std::string pair = "layouts " + std::to_string(x->format) + " -> " + std::to_string(y->format);
  if (!x_plain && !y_plain) {
    if (x->format != y->format || x->dims != y->dims) {
      return aclsim::FailNotModelled(api, where + ": a transform between two private " + pair + " is not modelled");
    }
    return copy();
  }
  const auto& plain = x_plain ? *x : *y;
  const auto& stored = x_plain ? *y : *x;
  // An empty tensor has no element to move (torch_npu gives its buffers no memory, so they compare equal).
  if (Elements(plain.dims) == 0) return ACL_SUCCESS;
  if (from->data == to->data) return Fail(ACL_ERROR_INVALID_PARAM, where + ": a layout transform in place");
  std::string why;
  const aclError status = LaunchLayoutTransform(api, stream, plain.format, plain.dims, stored.format, stored.dims, item,
                                                from->data, to->data, y_bytes, x_plain, &why);
  if (status != ACL_SUCCESS && !why.empty()) {
    return aclsim::FailNotModelled(api, where + ": " + pair + ": " + why + " (not modelled)");
  }
  return status;
}

aclError LaunchLayoutTransform(const char* api, aclrtStream stream, aclFormat plain_format, const std::vector<int64_t>& plain,
                               aclFormat private_format, const std::vector<int64_t>& storage, size_t item,
                               const void* from, void* to, size_t to_bytes, bool into_private, std::string* why) {
  auto transform = std::make_unique<LayoutTransform>();
  transform->offsets = PrivateOffsets(plain_format, plain, private_format, storage, why);
  if (transform->offsets.empty() && Elements(plain) != 0) return aclsim::NotModelledStatus(api);
  transform->from = static_cast<const char*>(from);
  transform->to = static_cast<char*>(to);
  transform->item = item;
  transform->to_bytes = to_bytes;
  transform->into_private = into_private;
  aclError status = aclrtLaunchHostFunc(stream, &LayoutTransform::Run, transform.get());
  if (status == ACL_SUCCESS) transform.release();  // Run owns it now
  return status;
}

}  // namespace aclsim::aclop

namespace {

// The thread that asked for the operator: the one that made its descriptions. torch_npu's calling
// thread makes them (aclCreateTensorDesc, aclSetTensorFormat, aclSetTensorShape) and, unless
// ASCEND_LAUNCH_BLOCKING=1, its task-queue thread ("acl_thread") runs the call (traced with gdb on
// torch_npu 2.13.0 on Ascend910: `x + z` of plain tensors).
std::thread::id Asker(const aclsim::aclop::OpCall& call) {
  if (!call.inputs.empty()) return call.inputs[0].desc->maker;
  if (!call.outputs.empty()) return call.outputs[0].desc->maker;
  return std::this_thread::get_id();
}

// aclopCompileAndExecute's arguments, checked as CANN checks them, then run by the operator type's
// entry in the aclop bridge (bridge.h).
aclError CheckOperator(const char* api, const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                       const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                       const aclDataBuffer* const outputs[], const aclopAttr* attr, aclrtStream stream) {
  using aclsim::Fail;
  if (!opType) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": opType is a null pointer");
  if (numInputs < 0 || numOutputs < 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": a negative number of inputs or outputs");
  if ((numInputs && (!inputDesc || !inputs)) || (numOutputs && (!outputDesc || !outputs))) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": an input or output array is a null pointer");
  }
  aclsim::aclop::OpCall call;
  call.api = api;
  call.type = opType;
  call.stream = stream;
  auto& objects = aclsim::Objects();
  auto resolve = [&](const char* kind, int count, const aclTensorDesc* const descs[], const aclDataBuffer* const buffers[],
                     std::vector<aclsim::aclop::Operand>* operands) -> aclError {
    for (int i = 0; i < count; ++i) {
      aclsim::aclop::Operand operand{objects.descs.Find(descs[i]), objects.buffers.Find(buffers[i])};
      if (!operand.desc || !operand.buffer) {
        return call.Fail(ACL_ERROR_INVALID_PARAM, std::string(kind) + " " + std::to_string(i) +
                                                      " is not a live aclTensorDesc and aclDataBuffer");
      }
      operands->push_back(std::move(operand));
    }
    return ACL_SUCCESS;
  };
  if (aclError s = resolve("input", numInputs, inputDesc, inputs, &call.inputs)) return s;
  if (aclError s = resolve("output", numOutputs, outputDesc, outputs, &call.outputs)) return s;
  if (attr) {
    auto found = objects.attrs.Find(const_cast<aclopAttr*>(attr));
    if (!found) return call.Fail(ACL_ERROR_INVALID_PARAM, "attr is not a live aclopAttr");
    std::lock_guard<std::mutex> lock(found->mutex);
    call.attrs = found->values;
  }
  const bool for_another_thread = Asker(call) != std::this_thread::get_id();
  // An operator without tensors (torch_npu's npu_clear_float_status, NPUClearFloatStatusV2, passes no
  // attributes either: traced on Ascend910B) tells no asker: run on torch_npu's queue thread, its
  // failed call dropped every later operator of the process. It writes nothing a caller could read
  // before its next synchronisation, which reports its refusal held as another thread's.
  const bool tensorless = call.inputs.empty() && call.outputs.empty();
  if (for_another_thread) {
    aclsim::RunsOtherThreadsOperators();
  } else if (int32_t held = aclsim::TakeHeldRefusal(api)) {
    return held;
  }
  const aclError status = aclsim::aclop::Run(call);
  // Refused on a thread other than the asker's (torch_npu's task queue): failing this call would end
  // torch_npu's queue, every later operator of the process dropped without an error, their outputs
  // never written. The refusal is held for the process, whose next copy to the host, synchronisation
  // or operator on a thread that does not run other threads' operators returns it.
  // aclopCompileAndExecuteV2's stays its call's: its caller reads the outputs' extents the call wrote
  // (torch_npu calls it on the calling thread, its queue drained: torch.nonzero on Ascend910).
  if (status == ACL_SUCCESS || !(for_another_thread || tensorless) || std::string(api) != "aclopCompileAndExecute") {
    return status;
  }
  aclsim::HoldRefusal(status, aclGetRecentErrMsg());
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  if (!value) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclSetCompileopt: value is a null pointer");
  if (!KnownOption(opt)) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclSetCompileopt: unknown aclCompileOpt " + std::to_string(static_cast<int>(opt)));
  // "enable" runs operators by type name through the aclop bridge, which computes the types it models
  // and refuses every other one by name; torch_npu documents jit_compile=True on every chip
  // (_op_plugin_docs.py:3565-3566 lists Atlas A2 beside the training and inference series).
  if (opt == ACL_OP_JIT_COMPILE && std::string(value) != "enable" && std::string(value) != "disable") {
    return aclsim::Fail(ACL_ERROR_INVALID_PARAM, std::string("aclSetCompileopt: ACL_OP_JIT_COMPILE=") + value +
                                                     " is neither \"enable\" nor \"disable\"");
  }
  std::lock_guard<std::mutex> lock(Options().mutex);
  Options().values[opt] = value;
  return ACL_SUCCESS;
}

size_t aclGetCompileoptSize(aclCompileOpt opt) {
  if (!KnownOption(opt)) return 0;
  std::string value;
  if (!CurrentValue(opt, &value)) return 0;
  return value.size() + 1;  // with its terminating NUL
}

aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length) {
  if (!value) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: value is a null pointer");
  if (!KnownOption(opt)) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: unknown aclCompileOpt " + std::to_string(static_cast<int>(opt)));
  std::string text;
  if (!CurrentValue(opt, &text)) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, std::string("aclGetCompileopt: ") + aclGetRecentErrMsg());
  if (length < text.size() + 1) {
    return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: length " + std::to_string(length) +
                                                     " is too small for the value (aclGetCompileoptSize gives the size)");
  }
  text.copy(value, text.size());
  value[text.size()] = '\0';
  return ACL_SUCCESS;
}

aclGraphDumpOption* aclCreateGraphDumpOpt() { return reinterpret_cast<aclGraphDumpOption*>(new GraphDumpOption); }

aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption* graphDumpOpt) {
  delete reinterpret_cast<const GraphDumpOption*>(graphDumpOpt);
  return ACL_SUCCESS;
}

aclError aclopCompileAndExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                                aclDataBuffer* const outputs[], const aclopAttr* attr, aclopEngineType, aclopCompileType,
                                const char*, aclrtStream stream) {
  return CheckOperator("aclopCompileAndExecute", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream);
}

aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                                  int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr* attr,
                                  aclopEngineType, aclopCompileType, const char*, aclrtStream stream) {
  return CheckOperator("aclopCompileAndExecuteV2", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream);
}

// Building an operator's graph to dump it needs the graph engine, which the simulator lacks.
aclError aclGenGraphAndDumpForOp(const char*, int, const aclTensorDesc* const[], const aclDataBuffer* const[], int,
                                 const aclTensorDesc* const[], aclDataBuffer* const[], const aclopAttr*, aclopEngineType,
                                 const char*, const aclGraphDumpOption*) {
  return aclsim::FailNotModelled("aclGenGraphAndDumpForOp", "aclGenGraphAndDumpForOp: not modelled by the simulator (no graph engine)");
}

}  // extern "C"
