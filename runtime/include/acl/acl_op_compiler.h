/* aclnn-bindgen: libacl_op_compiler's calls (acl_op_compiler.h of the public acl API reference):
 * the process's compile options, and compiling and running one operator by its type name. */
#ifndef ACLNN_BINDGEN_ACL_OP_COMPILER_H_
#define ACLNN_BINDGEN_ACL_OP_COMPILER_H_

#include "acl/acl_base.h"
#include "acl/acl_op.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclCompileType { ACL_COMPILE_SYS, ACL_COMPILE_UNREGISTERED } aclopCompileType;

typedef enum {
  ACL_PRECISION_MODE = 0,
  ACL_AICORE_NUM = 1,
  ACL_AUTO_TUNE_MODE = 2,
  ACL_OP_SELECT_IMPL_MODE = 3,
  ACL_OPTYPELIST_FOR_IMPLMODE = 4,
  ACL_OP_DEBUG_LEVEL = 5,
  ACL_DEBUG_DIR = 6,
  ACL_OP_COMPILER_CACHE_MODE = 7,
  ACL_OP_COMPILER_CACHE_DIR = 8,
  ACL_OP_PERFORMANCE_MODE = 9,
  ACL_OP_JIT_COMPILE = 10,
  ACL_OP_DETERMINISTIC = 11,
  ACL_CUSTOMIZE_DTYPES = 12,
  ACL_OP_PRECISION_MODE = 13,
  ACL_ALLOW_HF32 = 14,
  ACL_PRECISION_MODE_V2 = 15,
  ACL_OP_DEBUG_OPTION = 16
} aclCompileOpt;

typedef struct aclGraphDumpOption aclGraphDumpOption;

ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char *value);
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt);
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length);
ACL_FUNC_VISIBILITY aclGraphDumpOption *aclCreateGraphDumpOpt();
ACL_FUNC_VISIBILITY aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption *graphDumpOpt);

ACL_FUNC_VISIBILITY aclError aclGenGraphAndDumpForOp(const char *opType, int numInputs,
                                                     const aclTensorDesc *const inputDesc[],
                                                     const aclDataBuffer *const inputs[], int numOutputs,
                                                     const aclTensorDesc *const outputDesc[],
                                                     aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                     aclopEngineType engineType, const char *graphDumpPath,
                                                     const aclGraphDumpOption *graphDumpOpt);

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char *opType, int numInputs,
                                                    const aclTensorDesc *const inputDesc[],
                                                    const aclDataBuffer *const inputs[], int numOutputs,
                                                    const aclTensorDesc *const outputDesc[],
                                                    aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                    aclopEngineType engineType, aclopCompileType compileFlag,
                                                    const char *opPath, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                                      aclDataBuffer *inputs[], int numOutputs,
                                                      aclTensorDesc *outputDesc[], aclDataBuffer *outputs[],
                                                      aclopAttr *attr, aclopEngineType engineType,
                                                      aclopCompileType compileFlag, const char *opPath,
                                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_BINDGEN_ACL_OP_COMPILER_H_ */
