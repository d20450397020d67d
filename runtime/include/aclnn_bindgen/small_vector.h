// aclnn-bindgen: a vector of trivially copyable values that keeps its first N elements inline.
//
// Shapes and strides are the hot data of every call: CANN's operators take at most 8 dimensions,
// so with N = 8 a descriptor is copied, compared and passed without touching the heap. Longer
// vectors (a rank-9 tensor that an operator must refuse with its own status) still work, on the heap.
#ifndef ACLNN_BINDGEN_SMALL_VECTOR_H_
#define ACLNN_BINDGEN_SMALL_VECTOR_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>

namespace aclnn_bindgen {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable<T>::value, "SmallVector holds plain values");

 public:
  SmallVector() = default;
  SmallVector(size_t count, const T& value) { assign(count, value); }
  SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  template <typename It, typename = decltype(*std::declval<It>())>
  SmallVector(It first, It last) { assign(first, last); }
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SmallVector(SmallVector&& other) noexcept { *this = std::move(other); }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this == &other) return *this;
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      capacity_ = other.capacity_;
    } else {
      heap_.reset();
      capacity_ = N;
      std::memcpy(inline_, other.inline_, other.size_ * sizeof(T));
    }
    size_ = other.size_;
    other.size_ = 0;
    other.capacity_ = N;
    return *this;
  }

  template <typename It>
  void assign(It first, It last) {
    const size_t count = static_cast<size_t>(std::distance(first, last));
    reserve(count);
    std::copy(first, last, data());
    size_ = count;
  }
  void assign(size_t count, const T& value) {
    reserve(count);
    std::fill_n(data(), count, value);
    size_ = count;
  }
  void resize(size_t count, const T& value = T()) {
    reserve(count);
    if (count > size_) std::fill(data() + size_, data() + count, value);
    size_ = count;
  }
  void push_back(const T& value) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data()[size_++] = value;
  }
  void clear() { size_ = 0; }
  void reserve(size_t count) {
    if (count <= capacity_) return;
    std::unique_ptr<T[]> bigger(new T[count]);
    std::memcpy(bigger.get(), data(), size_ * sizeof(T));
    heap_ = std::move(bigger);
    capacity_ = count;
  }

  T* data() { return heap_ ? heap_.get() : inline_; }
  const T* data() const { return heap_ ? heap_.get() : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const SmallVector& a, const SmallVector& b) { return !(a == b); }

 private:
  T inline_[N];
  std::unique_ptr<T[]> heap_;
  size_t size_ = 0;
  size_t capacity_ = N;
};

// Dimensions and strides of one tensor: a rank is at most 8 for every CANN operator.
using Dims = SmallVector<int64_t, 8>;

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_SMALL_VECTOR_H_
