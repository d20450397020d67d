/* aclnn-bindgen: the NAMES of the ABI's enumerators and status codes, listed once as X-macros.
 *
 * Their VALUES are never written here: they come from whichever header set the translation unit
 * includes (runtime/include, or a CANN toolkit's include/). That makes one list serve three
 * purposes without restating a value:
 *   - the Python package's table of status names (runtime/binding/errors.cpp),
 *   - runtime/binding/abi_dump.cpp, which prints the values of runtime/include,
 *   - abi_check.h, which asserts at compile time that another header set has the same values.
 * tests/bindings/test_loader_abi.py checks that every enumerator and status code of runtime/include is
 * listed here, so the list cannot silently fall behind the headers. */
#ifndef ACLNN_BINDGEN_ABI_VALUES_H_
#define ACLNN_BINDGEN_ABI_VALUES_H_

/* aclnnStatus (aclnn/acl_meta.h). ACLNN_ERR_INNER_KEY_CONFILICT is an alias, not listed. */
#define ACLNN_BINDGEN_STATUS_CODES(X)            \
  X(ACLNN_SUCCESS)                               \
  X(ACLNN_ERR_PARAM_NULLPTR)                     \
  X(ACLNN_ERR_PARAM_INVALID)                     \
  X(ACLNN_ERR_RUNTIME_ERROR)                     \
  X(ACLNN_ERR_INNER)                             \
  X(ACLNN_ERR_INNER_INFERSHAPE_ERROR)            \
  X(ACLNN_ERR_INNER_TILING_ERROR)                \
  X(ACLNN_ERR_INNER_FIND_KERNEL_ERROR)           \
  X(ACLNN_ERR_INNER_CREATE_EXECUTOR)             \
  X(ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR)          \
  X(ACLNN_ERR_INNER_NULLPTR)                     \
  X(ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE)        \
  X(ACLNN_ERR_INNER_KEY_CONFLICT)                \
  X(ACLNN_ERR_INNER_INVALID_IMPL_MODE)           \
  X(ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND)          \
  X(ACLNN_ERR_INNER_LOAD_JSON_FAILED)            \
  X(ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND)        \
  X(ACLNN_ERR_INNER_JSON_FORMAT_INVALID)         \
  X(ACLNN_ERR_INNER_JSON_DTYPE_INVALID)          \
  X(ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND)    \
  X(ACLNN_ERR_INNER_OP_FILE_INVALID)             \
  X(ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND)       \
  X(ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH)         \
  X(ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE) \
  X(ACLNN_ERR_INNER_INPUT_JSON_IS_NULL)          \
  X(ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID)    \
  X(ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID)

/* aclError (acl/acl_base.h): what the runtime calls (aclInit, aclrtMalloc, ...) return. */
#define ACLNN_BINDGEN_ACL_ERRORS(X)  \
  X(ACL_SUCCESS)                     \
  X(ACL_ERROR_INVALID_PARAM)         \
  X(ACL_ERROR_UNINITIALIZE)          \
  X(ACL_ERROR_REPEAT_INITIALIZE)     \
  X(ACL_ERROR_INVALID_FILE)          \
  X(ACL_ERROR_PARSE_FILE)            \
  X(ACL_ERROR_FILE_ATTR_INVALID)     \
  X(ACL_ERROR_RT_PARAM_INVALID)      \
  X(ACL_ERROR_RT_INVALID_DEVICEID)   \
  X(ACL_ERROR_RT_CONTEXT_NULL)       \
  X(ACL_ERROR_RT_STREAM_CONTEXT)     \
  X(ACL_ERROR_BAD_ALLOC)             \
  X(ACL_ERROR_RT_MEMORY_ALLOCATION)  \
  X(ACL_ERROR_INTERNAL_ERROR)        \
  X(ACL_ERROR_FAILURE)               \
  X(ACL_ERROR_RT_FAILURE)            \
  X(ACL_ERROR_RT_INTERNAL_ERROR)     \
  X(ACL_ERROR_RT_EVENT_NOT_COMPLETE) \
  X(ACL_ERROR_RT_AICORE_EXCEPTION) \
  X(ACL_ERROR_OP_TYPE_NOT_MATCH) \
  X(ACL_ERROR_OP_INPUT_NOT_MATCH) \
  X(ACL_ERROR_OP_OUTPUT_NOT_MATCH) \
  X(ACL_ERROR_OP_ATTR_NOT_MATCH) \
  X(ACL_ERROR_OP_NOT_FOUND) \
  X(ACL_ERROR_UNSUPPORTED_DATA_TYPE) \
  X(ACL_ERROR_FORMAT_NOT_MATCH) \
  X(ACL_ERROR_RT_REPORT_TIMEOUT) \
  X(ACL_ERROR_RT_WAIT_TIMEOUT) \
  X(ACL_ERROR_RT_CAPTURE_DEPENDENCY) \
  X(ACL_ERROR_RT_STREAM_UNJOINED) \
  X(ACL_ERROR_RT_MODEL_CAPTURED) \
  X(ACL_ERROR_RT_STREAM_CAPTURED) \
  X(ACL_ERROR_RT_EVENT_CAPTURED) \
  X(ACL_ERROR_RT_STREAM_NOT_CAPTURED) \
  X(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT) \
  X(ACL_ERROR_STREAM_TASK_GROUP_STATUS) \
  X(ACL_ERROR_STREAM_TASK_GROUP_INTR) \
  X(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED) \
  X(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD) \
  X(ACL_ERROR_RT_MODEL_UPDATE_FAILED) \
  X(ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP) \
  X(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) \
  X(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT) \
  X(ACL_ERROR_FEATURE_UNSUPPORTED) \
  X(ACL_ERROR_RT_FEATURE_NOT_SUPPORT) \
  X(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED) \
  X(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED) \
  X(ACL_ERROR_RT_NO_PERMISSION)

/* aclDataType (acl/acl_base.h). */
#define ACLNN_BINDGEN_DATA_TYPES(X) \
  X(ACL_DT_UNDEFINED)               \
  X(ACL_FLOAT)                      \
  X(ACL_FLOAT16)                    \
  X(ACL_INT8)                       \
  X(ACL_INT32)                      \
  X(ACL_UINT8)                      \
  X(ACL_INT16)                      \
  X(ACL_UINT16)                     \
  X(ACL_UINT32)                     \
  X(ACL_INT64)                      \
  X(ACL_UINT64)                     \
  X(ACL_DOUBLE)                     \
  X(ACL_BOOL)                       \
  X(ACL_STRING)                     \
  X(ACL_COMPLEX64)                  \
  X(ACL_COMPLEX128)                 \
  X(ACL_BF16)                       \
  X(ACL_INT4)                       \
  X(ACL_UINT1)                      \
  X(ACL_COMPLEX32)                  \
  X(ACL_HIFLOAT8)                   \
  X(ACL_FLOAT8_E5M2)                \
  X(ACL_FLOAT8_E4M3FN)              \
  X(ACL_FLOAT8_E8M0)                \
  X(ACL_FLOAT6_E3M2)                \
  X(ACL_FLOAT6_E2M3)                \
  X(ACL_FLOAT4_E2M1)                \
  X(ACL_FLOAT4_E1M2)

/* aclFormat (acl/acl_base.h). ACL_FORMAT_FRACTAL_Z_3D is an alias, not listed. */
#define ACLNN_BINDGEN_FORMATS(X)     \
  X(ACL_FORMAT_UNDEFINED)            \
  X(ACL_FORMAT_NCHW)                 \
  X(ACL_FORMAT_NHWC)                 \
  X(ACL_FORMAT_ND)                   \
  X(ACL_FORMAT_NC1HWC0)              \
  X(ACL_FORMAT_FRACTAL_Z)            \
  X(ACL_FORMAT_NC1HWC0_C04)          \
  X(ACL_FORMAT_HWCN)                 \
  X(ACL_FORMAT_NDHWC)                \
  X(ACL_FORMAT_FRACTAL_NZ)           \
  X(ACL_FORMAT_NCDHW)                \
  X(ACL_FORMAT_DHWCN)                \
  X(ACL_FORMAT_NDC1HWC0)             \
  X(ACL_FRACTAL_Z_3D)                \
  X(ACL_FORMAT_NC)                   \
  X(ACL_FORMAT_NCL)                  \
  X(ACL_FORMAT_FRACTAL_NZ_C0_16)     \
  X(ACL_FORMAT_FRACTAL_NZ_C0_32)     \
  X(ACL_FORMAT_FRACTAL_NZ_C0_2)      \
  X(ACL_FORMAT_FRACTAL_NZ_C0_4)      \
  X(ACL_FORMAT_FRACTAL_NZ_C0_8)

/* The runtime's enumerations (acl/acl_rt.h, and acl/acl_base.h's beyond dtypes and formats). */
#define ACLNN_BINDGEN_RUNTIME_ENUMS(X)  \
  X(ACL_MEMCPY_HOST_TO_HOST)            \
  X(ACL_MEMCPY_HOST_TO_DEVICE)          \
  X(ACL_MEMCPY_DEVICE_TO_HOST)          \
  X(ACL_MEMCPY_DEVICE_TO_DEVICE)        \
  X(ACL_MEMCPY_DEFAULT)                 \
  X(ACL_MEM_MALLOC_HUGE_FIRST)          \
  X(ACL_MEM_MALLOC_HUGE_ONLY)           \
  X(ACL_MEM_MALLOC_NORMAL_ONLY)         \
  X(ACL_MEM_MALLOC_HUGE_FIRST_P2P)      \
  X(ACL_MEM_MALLOC_HUGE_ONLY_P2P)       \
  X(ACL_MEM_MALLOC_NORMAL_ONLY_P2P)     \
  X(ACL_MEM_TYPE_LOW_BAND_WIDTH)        \
  X(ACL_MEM_TYPE_HIGH_BAND_WIDTH)       \
  X(ACL_STREAM_STATUS_COMPLETE)         \
  X(ACL_STREAM_STATUS_NOT_READY)        \
  X(ACL_STREAM_STATUS_RESERVED)         \
  X(ACL_EVENT_RECORDED_STATUS_NOT_READY) \
  X(ACL_EVENT_RECORDED_STATUS_COMPLETE) \
  X(ACL_OPT_DETERMINISTIC)              \
  X(ACL_OPT_ENABLE_DEBUG_KERNEL) \
  X(ACL_DEBUG) \
  X(ACL_MEMTYPE_DEVICE) \
  X(ACL_MEMTYPE_HOST) \
  X(ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT) \
  X(ACL_CANN_ATTR_UNDEFINED) \
  X(ACL_CANN_ATTR_INF_NAN) \
  X(ACL_CANN_ATTR_BF16) \
  X(ACL_CANN_ATTR_JIT_COMPILE) \
  X(ACL_DEVICE_INFO_UNDEFINED) \
  X(ACL_DEVICE_INFO_AI_CORE_NUM) \
  X(ACL_DEVICE_INFO_VECTOR_CORE_NUM) \
  X(ACL_DEVICE_INFO_L2_SIZE) \
  X(ACL_OPT_STRONG_CONSISTENCY) \
  X(ACL_EVENT_WAIT_STATUS_COMPLETE) \
  X(ACL_EVENT_WAIT_STATUS_NOT_READY) \
  X(ACL_EVENT_WAIT_STATUS_RESERVED) \
  X(ACL_RT_OVERFLOW_MODE_SATURATION) \
  X(ACL_RT_THREAD_LEVEL) \
  X(ACL_MEM_LOCATION_TYPE_HOST) \
  X(ACL_MEM_LOCATION_TYPE_DEVICE) \
  X(ACL_MEM_LOCATION_TYPE_UNREGISTERED) \
  X(ACL_MEM_LOCATION_TYPE_HOST_NUMA) \
  X(ACL_MEM_ALLOCATION_TYPE_PINNED) \
  X(ACL_MEM_HANDLE_TYPE_NONE) \
  X(ACL_DEV_ATTR_AICPU_CORE_NUM) \
  X(ACL_DEV_ATTR_AICORE_CORE_NUM) \
  X(ACL_DEV_ATTR_CUBE_CORE_NUM) \
  X(ACL_DEV_ATTR_VECTOR_CORE_NUM) \
  X(ACL_DEV_ATTR_WARP_SIZE) \
  X(ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE) \
  X(ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE) \
  X(ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE) \
  X(ACL_DEV_ATTR_L2_CACHE_SIZE) \
  X(ACL_DEV_ATTR_SMP_ID) \
  X(ACL_DEV_ATTR_PHY_CHIP_ID) \
  X(ACL_DEV_ATTR_IS_VIRTUAL) \
  X(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) \
  X(ACL_MODEL_RI_CAPTURE_STATUS_NONE) \
  X(ACL_STREAM_ATTR_FAILURE_MODE) \
  X(ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK) \
  X(ACL_STREAM_ATTR_USER_CUSTOM_TAG) \
  X(ACL_STREAM_ATTR_CACHE_OP_INFO) \
  X(ACL_STREAM_ATTR_PRIORITY) \
  X(ACL_RT_NO_ERROR) \
  X(ACL_RT_ERROR_MEMORY) \
  X(ACL_RT_ERROR_L2) \
  X(ACL_RT_ERROR_AICORE) \
  X(ACL_RT_ERROR_LINK) \
  X(ACL_RT_ERROR_L3_PORT) \
  X(ACL_RT_ERROR_OTHERS) \
  X(ACL_RT_AICORE_ERROR_UNKNOWN) \
  X(ACL_RT_AICORE_ERROR_SW) \
  X(ACL_RT_AICORE_ERROR_HW_LOCAL) \
  X(ACL_HOST_REGISTER_MAPPED) \
  X(ACL_HOST_REGISTER_IOMEMORY) \
  X(ACL_HOST_REGISTER_READONLY) \
  X(ACL_RT_CMO_TYPE_PREFETCH) \
  X(ACL_RT_CMO_TYPE_WRITEBACK) \
  X(ACL_RT_CMO_TYPE_INVALID) \
  X(ACL_RT_CMO_TYPE_FLUSH) \
  X(ACL_RT_DEV_RES_CUBE_CORE) \
  X(ACL_RT_DEV_RES_VECTOR_CORE) \
  X(ACL_RT_MEM_ATTR_RSV) \
  X(ACL_RT_MEM_ATTR_MODULE_ID) \
  X(ACL_RT_MEM_ATTR_DEVICE_ID) \
  X(ACL_RT_MEM_ATTR_VA_FLAG)

/* Every value the compile-time check compares. */
#define ACLNN_BINDGEN_ABI_VALUES(X) \
  ACLNN_BINDGEN_STATUS_CODES(X)     \
  ACLNN_BINDGEN_ACL_ERRORS(X)       \
  ACLNN_BINDGEN_DATA_TYPES(X)       \
  ACLNN_BINDGEN_FORMATS(X)          \
  ACLNN_BINDGEN_RUNTIME_ENUMS(X)

#endif /* ACLNN_BINDGEN_ABI_VALUES_H_ */
