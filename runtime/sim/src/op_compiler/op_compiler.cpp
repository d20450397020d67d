// libacl_op_compiler: the process's operator compile options, and single operators run by type name
// (aclopCompileAndExecute), the path framework backends take for ops that have no aclnn API.
//
// Compile options are kept and reported back (torch_npu reads ACL_OP_JIT_COMPILE and
// ACL_PRECISION_MODE to choose how to run ops). The simulator runs aclnn kernels; of the operators
// run by type name it models Identity between plain layouts (a copy), and answers every other type
// ACL_ERROR_OP_NOT_FOUND naming it, never success.
#include <map>
#include <mutex>
#include <string>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "aclnn_sim/entry.h"
#include "ascendcl/op_objects.h"
#include "common/internal.h"

namespace {

struct CompileOptions {
  std::mutex mutex;
  // CANN's defaults where torch_npu reads them before setting them: binary (pre-compiled) kernels,
  // no JIT compilation, as on Atlas A2/A3.
  std::map<int, std::string> values{{ACL_OP_JIT_COMPILE, "disable"}};
};

CompileOptions& Options() {
  static CompileOptions* options = new CompileOptions;  // never destroyed: called during exit
  return *options;
}

bool KnownOption(aclCompileOpt opt) { return opt >= ACL_PRECISION_MODE && opt <= ACL_OP_DEBUG_OPTION; }

struct GraphDumpOption {
  int unused = 0;
};

// The plain (non-private) layouts: the simulator's one list of them (aclnn_sim/entry.h).
bool PlainFormat(aclFormat format) {
  const int value = static_cast<int>(format);
  return value >= 0 && value < 64 && ((aclsim::kPlainFormats >> value) & 1) != 0;
}

// Identity: y = x, the operator framework backends run to copy a tensor into a fresh one
// (torch_npu's npu_format_cast between plain layouts, and create_common_tensor in its tests). Between
// plain layouts of the same shape and dtype it is a copy on the stream; a transform into or out of a
// private layout (NC1HWC0, FRACTAL_NZ: the storage order changes) is not modelled and says so.
aclError RunIdentity(const char* api, int numInputs, const aclTensorDesc* const inputDesc[],
                     const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                     const aclDataBuffer* const outputs[], aclrtStream stream) {
  using aclsim::Fail;
  const std::string where = std::string(api) + " (Identity)";
  if (numInputs != 1 || numOutputs != 1) return Fail(ACL_ERROR_INVALID_PARAM, where + ": takes one input and one output");
  auto& objects = aclsim::Objects();
  const auto x = objects.descs.Find(inputDesc[0]), y = objects.descs.Find(outputDesc[0]);
  const auto from = objects.buffers.Find(inputs[0]), to = objects.buffers.Find(outputs[0]);
  if (x->dtype != y->dtype) return Fail(ACL_ERROR_INVALID_PARAM, where + ": the output's dtype differs from the input's");
  if (!PlainFormat(x->format) || !PlainFormat(y->format)) {
    return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, where + ": a transform between layouts " + std::to_string(x->format) +
                                                      " and " + std::to_string(y->format) +
                                                      " (a private format: the storage order changes) is not modelled");
  }
  if (x->dims != y->dims) return Fail(ACL_ERROR_INVALID_PARAM, where + ": the output's shape differs from the input's");
  int64_t count = 1;
  for (int64_t d : x->dims) {
    if (d < 0) return Fail(ACL_ERROR_INVALID_PARAM, where + ": an unknown (dynamic) dimension");
    count *= d;
  }
  const size_t item = aclDataTypeSize(x->dtype);
  if (item == 0) return Fail(ACL_ERROR_INVALID_PARAM, where + ": a dtype of no fixed element size");
  const size_t bytes = static_cast<size_t>(count) * item;
  if (bytes > from->size || bytes > to->size) {
    return Fail(ACL_ERROR_INVALID_PARAM, where + ": " + std::to_string(bytes) + " bytes do not fit the data buffers");
  }
  if (bytes == 0 || from->data == to->data) return ACL_SUCCESS;
  return aclrtMemcpyAsync(to->data, to->size, from->data, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
}

// aclopCompileAndExecute's arguments, checked as CANN checks them, before the op type is looked up.
aclError CheckOperator(const char* api, const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                       const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                       const aclDataBuffer* const outputs[], aclrtStream stream) {
  using aclsim::Fail;
  if (!opType) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": opType is a null pointer");
  if (numInputs < 0 || numOutputs < 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": a negative number of inputs or outputs");
  if ((numInputs && (!inputDesc || !inputs)) || (numOutputs && (!outputDesc || !outputs))) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": an input or output array is a null pointer");
  }
  auto& objects = aclsim::Objects();
  for (int i = 0; i < numInputs; ++i) {
    if (!objects.descs.Find(inputDesc[i]) || !objects.buffers.Find(inputs[i])) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + " (" + opType + "): input " + std::to_string(i) +
                                               " is not a live aclTensorDesc and aclDataBuffer");
    }
  }
  for (int i = 0; i < numOutputs; ++i) {
    if (!objects.descs.Find(outputDesc[i]) || !objects.buffers.Find(outputs[i])) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + " (" + opType + "): output " + std::to_string(i) +
                                               " is not a live aclTensorDesc and aclDataBuffer");
    }
  }
  if (std::string(opType) == "Identity") return RunIdentity(api, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, stream);
  return Fail(ACL_ERROR_OP_NOT_FOUND, std::string(api) + ": operator type " + opType +
                                          " cannot be compiled by the simulator, which runs aclnn kernels only "
                                          "(of the aclop operators only Identity between plain layouts is modelled)");
}

}  // namespace

extern "C" {

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  if (!value) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclSetCompileopt: value is a null pointer");
  if (!KnownOption(opt)) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclSetCompileopt: unknown aclCompileOpt " + std::to_string(static_cast<int>(opt)));
  if (opt == ACL_OP_JIT_COMPILE && std::string(value) == "enable") {
    return aclsim::Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "aclSetCompileopt: ACL_OP_JIT_COMPILE=enable: the simulator compiles no operator (binary aclnn kernels only)");
  }
  std::lock_guard<std::mutex> lock(Options().mutex);
  Options().values[opt] = value;
  return ACL_SUCCESS;
}

size_t aclGetCompileoptSize(aclCompileOpt opt) {
  if (!KnownOption(opt)) return 0;
  std::lock_guard<std::mutex> lock(Options().mutex);
  auto it = Options().values.find(opt);
  return (it == Options().values.end() ? 0 : it->second.size()) + 1;  // with its terminating NUL
}

aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length) {
  if (!value) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: value is a null pointer");
  if (!KnownOption(opt)) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: unknown aclCompileOpt " + std::to_string(static_cast<int>(opt)));
  std::lock_guard<std::mutex> lock(Options().mutex);
  auto it = Options().values.find(opt);
  const std::string text = it == Options().values.end() ? "" : it->second;
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
                                aclDataBuffer* const outputs[], const aclopAttr*, aclopEngineType, aclopCompileType,
                                const char*, aclrtStream stream) {
  return CheckOperator("aclopCompileAndExecute", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, stream);
}

aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                                  int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr*,
                                  aclopEngineType, aclopCompileType, const char*, aclrtStream stream) {
  return CheckOperator("aclopCompileAndExecuteV2", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, stream);
}

// Building an operator's graph to dump it needs the graph engine, which the simulator lacks.
aclError aclGenGraphAndDumpForOp(const char*, int, const aclTensorDesc* const[], const aclDataBuffer* const[], int,
                                 const aclTensorDesc* const[], aclDataBuffer* const[], const aclopAttr*, aclopEngineType,
                                 const char*, const aclGraphDumpOption*) {
  return aclsim::Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclGenGraphAndDumpForOp: not modelled by the simulator (no graph engine)");
}

}  // extern "C"
