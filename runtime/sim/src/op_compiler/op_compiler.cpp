// libacl_op_compiler: the process's operator compile options, and single operators run by type name
// (aclopCompileAndExecute), the path framework backends take for ops that have no aclnn API.
//
// Compile options are kept and reported back (torch_npu reads ACL_OP_JIT_COMPILE and
// ACL_PRECISION_MODE to choose how to run ops). The simulator runs aclnn kernels only: no operator
// can be compiled by type, so aclopCompileAndExecute checks its arguments and answers
// ACL_ERROR_OP_NOT_FOUND naming the op type, never success.
#include <map>
#include <mutex>
#include <string>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
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

// aclopCompileAndExecute's arguments, checked as CANN checks them, before the op type is looked up.
aclError CheckOperator(const char* api, const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                       const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                       const aclDataBuffer* const outputs[]) {
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
  return Fail(ACL_ERROR_OP_NOT_FOUND, std::string(api) + ": operator type " + opType +
                                          " cannot be compiled by the simulator, which runs aclnn kernels only "
                                          "(no aclop operator is modelled)");
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
                                const char*, aclrtStream) {
  return CheckOperator("aclopCompileAndExecute", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs);
}

aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                                  int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr*,
                                  aclopEngineType, aclopCompileType, const char*, aclrtStream) {
  return CheckOperator("aclopCompileAndExecuteV2", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs);
}

// Building an operator's graph to dump it needs the graph engine, which the simulator lacks.
aclError aclGenGraphAndDumpForOp(const char*, int, const aclTensorDesc* const[], const aclDataBuffer* const[], int,
                                 const aclTensorDesc* const[], aclDataBuffer* const[], const aclopAttr*, aclopEngineType,
                                 const char*, const aclGraphDumpOption*) {
  return aclsim::Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclGenGraphAndDumpForOp: not modelled by the simulator (no graph engine)");
}

}  // extern "C"
