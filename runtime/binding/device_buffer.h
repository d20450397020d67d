// aclnn-bindgen bindings: device memory shared by the tensors that view it (runtime.cpp; wait_for_writer: arrays.cpp).
#ifndef ACLNN_BINDING_DEVICE_BUFFER_H_
#define ACLNN_BINDING_DEVICE_BUFFER_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>

#include "acl/acl.h"
#include "aclnn_bindgen/small_vector.h"
#include "aclnn_bindgen/spin_lock.h"

#include "allocator.h"
#include "streams.h"

namespace aclnn_binding {
namespace py = pybind11;

// Device memory, shared by the tensors that view it: a block of the caching allocator (returned
// to it when the last tensor goes), or someone else's memory kept alive through its owner.
class DeviceBuffer {
 public:
  // Throws AclnnFailure (phase "aclrtMalloc"); never returns null. A 0-byte request gets a small
  // block, so that empty tensors still have a valid address.
  static std::shared_ptr<DeviceBuffer> allocate(size_t nbytes, Stream& stream, const char* api);
  // Memory of someone else (a framework's allocator): `owner` (any Python object, or None) stays
  // alive as long as the buffer; nothing is freed here.
  static std::shared_ptr<DeviceBuffer> foreign(void* data, size_t nbytes, int32_t device, py::object owner);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  int32_t device() const { return device_; }
  bool is_foreign() const { return block_ == nullptr; }
  // A call on `stream` uses the memory: when that is not the stream it was allocated for, the
  // allocator keeps the block from reuse until that stream's work is done (torch's record_stream,
  // done for every call, so users need not). Foreign memory's owner is kept alive likewise: let
  // go, it is released once every stream that used the memory has run what was queued on it (the
  // framework that owns the memory could otherwise reuse it under a queued kernel).
  void used_on(aclrtStream stream);
  // A call queued on `stream` writes the memory (an output, an in-place argument): a host read
  // (Tensor.numpy()) waits for that stream's work, whatever the current stream is then.
  void written_on(Stream& stream);
  // The stream that last wrote the memory, while it lives (null: none, or gone: a destroyed
  // stream has run its work).
  std::shared_ptr<Stream> last_writer() const;
  // CachingAllocator::describe for the buffer's block; null for foreign memory. Only for the
  // buffer's first tensor, right after allocate().
  aclTensor* describe_fresh(const DeviceTensor& tensor, const char* api);

 private:
  struct Key {};  // the constructor is public for make_shared (one allocation), callable from here only

 public:
  DeviceBuffer(Key, void* data, size_t nbytes, int32_t device, CachingAllocator* allocator, Block* block,
               PyObject* owner)
      : data_(data), nbytes_(nbytes), device_(device), allocator_(allocator), block_(block), owner_(owner) {}

 private:
  void* data_;
  size_t nbytes_;
  int32_t device_;
  CachingAllocator* allocator_;  // the block's (never destroyed); null for foreign memory
  Block* block_;      // the allocator's; null for foreign memory
  PyObject* owner_;   // foreign memory's owner (a strong reference), or null
  mutable aclnn_bindgen::SpinLock streams_lock_;  // guards streams_ and the writer
  aclnn_bindgen::SmallVector<aclrtStream, 4> streams_;  // foreign memory with an owner: the streams that used it
  // The last writer: compared by address first (a chain of calls on one stream writes its results
  // on the stream that wrote them, and a weak_ptr assignment per call would cost two atomics).
  const Stream* writer_raw_ = nullptr;
  std::weak_ptr<Stream> writer_;
};

// Makes `reader` wait for the work of the stream that last wrote `tensor`'s memory, when that is
// another stream (an event recorded there now, waited for by `reader`): a host read queued on
// `reader` then sees the values the writer computes, and a fault of that work reaches `reader`.
void wait_for_writer(const DeviceTensor& tensor, Stream& reader);

// Stream-ordered copies through the loader, counted. Throw AclnnFailure. No GIL needed.
void copy_async(void* dst, const void* src, size_t nbytes, aclrtMemcpyKind kind, Stream& stream, const std::string& api);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_DEVICE_BUFFER_H_
