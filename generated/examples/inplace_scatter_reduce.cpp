#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_scatter_reduce.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream* stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; --i) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }

  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                            shape.data(), shape.size(), *deviceAddr);
  return 0;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<int64_t> shape = {2, 3};
  std::vector<float> selfHost = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> indexHost = {0, 2, 1, 1, 0, 2};
  std::vector<float> srcHost = {10, 20, 30, 40, 50, 60};
  std::vector<float> outHost(6, 0);

  void *selfDev = nullptr, *indexDev = nullptr, *srcDev = nullptr, *outDev = nullptr, *workspace = nullptr;
  aclTensor *self = nullptr, *index = nullptr, *src = nullptr, *out = nullptr;

  CHECK_RET(CreateAclTensor(selfHost, shape, &selfDev, ACL_FLOAT, &self) == ACL_SUCCESS, return -1);
  CHECK_RET(CreateAclTensor(indexHost, shape, &indexDev, ACL_INT64, &index) == ACL_SUCCESS, return -1);
  CHECK_RET(CreateAclTensor(srcHost, shape, &srcDev, ACL_FLOAT, &src) == ACL_SUCCESS, return -1);
  CHECK_RET(CreateAclTensor(outHost, shape, &outDev, ACL_FLOAT, &out) == ACL_SUCCESS, return -1);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  int64_t dim = 1;
  int64_t reduce = 1;   // add
  bool includeSelf = true;

  ret = aclnnScatterReduceGetWorkspaceSize(self, dim, index, src, reduce, includeSelf, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
  }

  ret = aclnnScatterReduce(workspace, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  LOG_PRINT("aclnnScatterReduce run success.\n");
  return 0;
}
