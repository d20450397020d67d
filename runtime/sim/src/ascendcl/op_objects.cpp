// libascendcl, the descriptions a single-operator call (aclopCompileAndExecute) takes: tensor
// descriptions, data buffers and operator attributes. Plain objects, checked on every use: a
// handle that is not live is an error, never a crash.
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "common/handles.h"
#include "common/internal.h"
#include "ascendcl/op_objects.h"

namespace aclsim {

OpObjects& Objects() {
  static OpObjects* objects = new OpObjects;  // never destroyed: called during exit
  return *objects;
}

}  // namespace aclsim

using aclsim::Fail;
using aclsim::Objects;

namespace {

std::shared_ptr<aclsim::OpTensorDesc> Desc(const aclTensorDesc* desc) {
  return desc ? Objects().descs.Find(const_cast<aclTensorDesc*>(desc)) : nullptr;
}

std::shared_ptr<aclsim::OpAttr> Attr(const aclopAttr* attr, const char* name, const char* api, aclError* status) {
  auto found = attr ? Objects().attrs.Find(const_cast<aclopAttr*>(attr)) : nullptr;
  if (!found) *status = Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": attr is not a live aclopAttr");
  else if (!name) *status = Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": attrName is a null pointer");
  return name ? found : nullptr;
}

template <typename Value>
aclError SetAttr(aclopAttr* attr, const char* name, Value value, const char* api) {
  aclError status = ACL_SUCCESS;
  auto found = Attr(attr, name, api, &status);
  if (!found) return status;
  std::lock_guard<std::mutex> lock(found->mutex);
  found->values[name] = aclsim::OpAttrValue(std::move(value));
  return ACL_SUCCESS;
}

bool ValidDims(int numDims, const int64_t* dims) {
  if (numDims < 0 || (numDims > 0 && !dims)) return false;
  for (int i = 0; i < numDims; ++i) {
    if (dims[i] < -2) return false;  // -1: unknown, -2: unknown rank (acl_base.h's dynamic shapes)
  }
  return true;
}

}  // namespace

extern "C" {

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims, aclFormat format) {
  if (!ValidDims(numDims, dims)) {
    aclsim::SetError("aclCreateTensorDesc: numDims is negative, or dims is null or holds a dimension below -2");
    return nullptr;
  }
  auto desc = std::make_shared<aclsim::OpTensorDesc>();
  desc->dtype = dataType;
  desc->format = format;
  desc->dims.assign(dims, dims + numDims);
  desc->origin_format = format;
  desc->origin_dims = desc->dims;
  return reinterpret_cast<aclTensorDesc*>(Objects().descs.Add(std::move(desc)));
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  if (desc && !Objects().descs.Take(const_cast<aclTensorDesc*>(desc))) {
    aclsim::SetError("aclDestroyTensorDesc: not a live aclTensorDesc (destroyed twice?)");
  }
}

aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
  auto d = Desc(desc);
  return d ? d->dtype : ACL_DT_UNDEFINED;
}

aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) {
  auto d = Desc(desc);
  return d ? d->format : ACL_FORMAT_UNDEFINED;
}

size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
  auto d = Desc(desc);
  return d ? d->dims.size() : 0;
}

aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index, int64_t* dimSize) {
  if (!dimSize) return Fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2: dimSize is a null pointer");
  auto d = Desc(desc);
  if (!d) return Fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2: desc is not a live aclTensorDesc");
  if (index >= d->dims.size()) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2: index " + std::to_string(index) + " is past the rank " +
                                             std::to_string(d->dims.size()));
  }
  *dimSize = d->dims[index];
  return ACL_SUCCESS;
}

void aclSetTensorDescName(aclTensorDesc* desc, const char* name) {
  auto d = Desc(desc);
  if (d) d->name = name ? name : "";
}

aclError aclSetTensorFormat(aclTensorDesc* desc, aclFormat format) {
  auto d = Desc(desc);
  if (!d) return Fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorFormat: desc is not a live aclTensorDesc");
  d->format = format;
  return ACL_SUCCESS;
}

aclError aclSetTensorShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  auto d = Desc(desc);
  if (!d) return Fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorShape: desc is not a live aclTensorDesc");
  if (!ValidDims(numDims, dims)) return Fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorShape: invalid numDims or dims");
  d->dims.assign(dims, dims + numDims);
  return ACL_SUCCESS;
}

aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType) {
  auto d = Desc(desc);
  if (!d) return Fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorPlaceMent: desc is not a live aclTensorDesc");
  if (memType < ACL_MEMTYPE_DEVICE || memType > ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorPlaceMent: unknown aclMemType");
  }
  d->placement = memType;
  return ACL_SUCCESS;
}

aclError aclSetTensorConst(aclTensorDesc* desc, void* dataBuffer, size_t length) {
  auto d = Desc(desc);
  if (!d) return Fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorConst: desc is not a live aclTensorDesc");
  if (!dataBuffer && length) return Fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorConst: dataBuffer is a null pointer");
  const auto* bytes = static_cast<const uint8_t*>(dataBuffer);
  d->constant_data.assign(bytes, bytes + length);
  d->constant = true;
  return ACL_SUCCESS;
}

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  auto buffer = std::make_shared<aclsim::OpDataBuffer>();
  buffer->data = data;
  buffer->size = size;
  return reinterpret_cast<aclDataBuffer*>(Objects().buffers.Add(std::move(buffer)));
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  if (!dataBuffer || !Objects().buffers.Take(const_cast<aclDataBuffer*>(dataBuffer))) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: not a live aclDataBuffer");
  }
  return ACL_SUCCESS;
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  auto b = dataBuffer ? Objects().buffers.Find(const_cast<aclDataBuffer*>(dataBuffer)) : nullptr;
  return b ? b->data : nullptr;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  auto b = dataBuffer ? Objects().buffers.Find(const_cast<aclDataBuffer*>(dataBuffer)) : nullptr;
  return b ? b->size : 0;
}

aclopAttr* aclopCreateAttr() {
  return reinterpret_cast<aclopAttr*>(Objects().attrs.Add(std::make_shared<aclsim::OpAttr>()));
}

void aclopDestroyAttr(const aclopAttr* attr) {
  if (attr && !Objects().attrs.Take(const_cast<aclopAttr*>(attr))) {
    aclsim::SetError("aclopDestroyAttr: not a live aclopAttr (destroyed twice?)");
  }
}

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue) {
  return SetAttr(attr, attrName, attrValue != 0, "aclopSetAttrBool");
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue) {
  return SetAttr(attr, attrName, attrValue, "aclopSetAttrInt");
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue) {
  return SetAttr(attr, attrName, attrValue, "aclopSetAttrFloat");
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue) {
  if (!attrValue) return Fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttrString: attrValue is a null pointer");
  return SetAttr(attr, attrName, std::string(attrValue), "aclopSetAttrString");
}

aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName, aclDataType attrValue) {
  return SetAttr(attr, attrName, attrValue, "aclopSetAttrDataType");
}

aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName, int numValues, const uint8_t* values) {
  if (numValues < 0 || (numValues && !values)) return Fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttrListBool: invalid list");
  return SetAttr(attr, attrName, std::vector<bool>(values, values + numValues), "aclopSetAttrListBool");
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues, const int64_t* values) {
  if (numValues < 0 || (numValues && !values)) return Fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttrListInt: invalid list");
  return SetAttr(attr, attrName, std::vector<int64_t>(values, values + numValues), "aclopSetAttrListInt");
}

aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName, int numValues, const float* values) {
  if (numValues < 0 || (numValues && !values)) return Fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttrListFloat: invalid list");
  return SetAttr(attr, attrName, std::vector<float>(values, values + numValues), "aclopSetAttrListFloat");
}

aclError aclopSetAttrListListInt(aclopAttr* attr, const char* attrName, int numLists, const int* numValues,
                                 const int64_t* const values[]) {
  if (numLists < 0 || (numLists && (!numValues || !values))) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttrListListInt: invalid list");
  }
  std::vector<std::vector<int64_t>> lists;
  for (int i = 0; i < numLists; ++i) {
    if (numValues[i] < 0 || (numValues[i] && !values[i])) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclopSetAttrListListInt: invalid list " + std::to_string(i));
    }
    lists.emplace_back(values[i], values[i] + numValues[i]);
  }
  return SetAttr(attr, attrName, std::move(lists), "aclopSetAttrListListInt");
}

}  // extern "C"
