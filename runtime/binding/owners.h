// aclnn-bindgen bindings: RAII owners of CANN objects.
#ifndef ACLNN_BINDING_OWNERS_H_
#define ACLNN_BINDING_OWNERS_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "aclnn/acl_meta.h"

#include "errors.h"
#include "runtime.h"

namespace aclnn_binding {

template <class T> struct Destroy;
#define ACLNN_BINDING_DESTROY(Type, fn)                                        \
  template <> struct Destroy<Type> {                                           \
    void operator()(Type* p) const {                                           \
      if (p == nullptr) return;                                                \
      counters().live_objects.fetch_sub(1);                                    \
      if (Runtime::alive()) Runtime::get().abi().fn(p);                        \
    }                                                                          \
  };
ACLNN_BINDING_DESTROY(aclTensor, aclDestroyTensor)
ACLNN_BINDING_DESTROY(aclScalar, aclDestroyScalar)
ACLNN_BINDING_DESTROY(aclIntArray, aclDestroyIntArray)
ACLNN_BINDING_DESTROY(aclFloatArray, aclDestroyFloatArray)
ACLNN_BINDING_DESTROY(aclBoolArray, aclDestroyBoolArray)
ACLNN_BINDING_DESTROY(aclTensorList, aclDestroyTensorList)
ACLNN_BINDING_DESTROY(aclScalarList, aclDestroyScalarList)
#undef ACLNN_BINDING_DESTROY
template <class T> using Owner = std::unique_ptr<T, Destroy<T>>;

// The CANN objects of one call, destroyed in reverse order of creation. The first N live inline:
// a call creates a handful, and allocating for them on every call was measurable.
template <class T, size_t N = 8>
class Owners {
 public:
  Owners() = default;
  Owners(const Owners&) = delete;
  Owners& operator=(const Owners&) = delete;
  ~Owners() {
    for (size_t i = size(); i-- > 0;) Destroy<T>()(at(i));
  }
  size_t add(T* object) {
    if (count_ < N) inline_[count_] = object;
    else overflow_.push_back(object);
    return count_++;
  }
  T* get(size_t i) const { return at(i); }
  // The object now belongs to something else (a list owns its elements): not destroyed here.
  void release(size_t i) { (i < N ? inline_[i] : overflow_[i - N]) = nullptr; }
  size_t size() const { return count_; }

 private:
  T* at(size_t i) const { return i < N ? inline_[i] : overflow_[i - N]; }
  T* inline_[N];  // the first count_ are set
  std::vector<T*> overflow_;
  size_t count_ = 0;
};

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_OWNERS_H_
