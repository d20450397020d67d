// The objects behind acl_op.h's handles (libascendcl), shared with libacl_op_compiler, which reads
// them when it runs an operator (aclopCompileAndExecute).
#ifndef ACLNN_SIM_ASCENDCL_OP_OBJECTS_H_
#define ACLNN_SIM_ASCENDCL_OP_OBJECTS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "acl/acl.h"
#include "common/handles.h"
#include "common/internal.h"

namespace aclsim {

struct OpTensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  // The storage's: aclSetTensorFormat and aclSetTensorShape change them.
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> dims;
  // The tensor's own (origin) layout and shape, as aclCreateTensorDesc gave them: what a private
  // storage layout (NC1HWC0, FRACTAL_NZ) holds.
  aclFormat origin_format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> origin_dims;
  std::string name;
  aclMemType placement = ACL_MEMTYPE_DEVICE;
  // aclSetTensorConst's copy of the tensor's value: an operator reads it when it is compiled (a
  // shape, a permutation, offsets), whatever its data buffer holds then.
  bool constant = false;
  std::vector<uint8_t> constant_data;
  // The thread that made it (aclCreateTensorDesc): the one that asked for the operators it describes,
  // which another thread may run (HoldRefusal).
  std::thread::id maker = std::this_thread::get_id();
};

struct OpDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

using OpAttrValue = std::variant<bool, int64_t, float, std::string, aclDataType, std::vector<bool>,
                                 std::vector<int64_t>, std::vector<float>, std::vector<std::vector<int64_t>>>;

struct OpAttr {
  std::mutex mutex;
  std::map<std::string, OpAttrValue> values;
};

struct OpObjects {
  Registry<OpTensorDesc> descs{0x61};
  Registry<OpDataBuffer> buffers{0x62};
  Registry<OpAttr> attrs{0x63};
};

ACLSIM_EXPORT OpObjects& Objects();

}  // namespace aclsim

#endif  // ACLNN_SIM_ASCENDCL_OP_OBJECTS_H_
