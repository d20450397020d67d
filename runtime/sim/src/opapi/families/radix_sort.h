// The index family's sorts (sort, argsort, topk, sort_with_index) as a stable LSD radix sort of
// (key, position) pairs: each value becomes an unsigned key whose integer order is the sort's
// total order (NaN above every number, or below for sort_with_index's ascending order; -0.0 and
// +0.0 one key, so that they tie and keep their positions, as the comparison a < b has them), and
// a pass per byte of the key that varies moves every pair once. aten's CPU sort is std::sort (or
// std::stable_sort) of the pairs, n log n comparisons: over 1M float32 on one core 88 ms of CPU
// against ~10 for four passes here. A stable sort of a total order has one answer, so the result
// is the comparison sort's bit for bit, whichever way it is reached.
#ifndef ACLNN_SIM_OPAPI_FAMILIES_RADIX_SORT_H_
#define ACLNN_SIM_OPAPI_FAMILIES_RADIX_SORT_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "opapi/thread_pool.h"

namespace aclsim {

// The unsigned integer a sort key of T is: float's bits for float, 64 bits for double and int64.
template <typename T>
using RadixKey = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

// v's key: ascending integer order is the sort's order (descending: its complement); a NaN, any
// payload or sign, is the largest key, or the smallest when `nan_lowest`.
template <typename T>
RadixKey<T> OrderedKey(T v, bool nan_lowest) {
  using U = RadixKey<T>;
  constexpr U kSign = U{1} << (8 * sizeof(U) - 1);
  if constexpr (std::is_integral<T>::value) {
    return static_cast<U>(v) ^ kSign;
  } else {
    if (v != v) return nan_lowest ? U{0} : static_cast<U>(~U{0});
    if (v == 0) v = 0;  // -0.0 == +0.0: one key, so that they keep their positions
    U u;
    std::memcpy(&u, &v, sizeof u);
    // Negative floats order backwards in their bits; -inf's key stays above 0 and +inf's below ~0,
    // the NaN keys.
    return (u & kSign) ? static_cast<U>(~u) : static_cast<U>(u | kSign);
  }
}

template <typename Key>
struct RadixEntry {
  Key key;
  uint32_t at;  // the element's position along the line
};

// Sorts entries[0, n) by key, stably (equal keys keep their order), least significant byte first;
// a byte every key shares takes no pass. `parts` > 1 splits each pass into that many chunks on the
// pool (a chunk's pairs keep their order among the digit's slots, so the sort stays stable).
// `spare` holds n entries; returns which of the two buffers holds the result.
template <typename Key>
RadixEntry<Key>* RadixSort(RadixEntry<Key>* entries, RadixEntry<Key>* spare, int64_t n, int64_t parts) {
  constexpr int kBytes = sizeof(Key);
  using Counts = std::array<int64_t, 256>;
  // A short line costs less compared than counted (a pass has 256 digits to add up whatever n is):
  // the same order, keys then positions.
  constexpr int64_t kShortLine = 512;
  if (n < kShortLine) {
    std::sort(entries, entries + n, [](const RadixEntry<Key>& a, const RadixEntry<Key>& b) {
      return a.key < b.key || (a.key == b.key && a.at < b.at);
    });
    return entries;
  }
  parts = std::max<int64_t>(1, std::min<int64_t>(parts, n));
  auto bound = [&](int64_t part) { return n * part / parts; };
  // counts[part * kBytes + byte][digit] over the part's chunk as the entries first stand.
  std::vector<Counts> counts(static_cast<size_t>(parts * kBytes), Counts{});
  ParallelFor(parts, [&](int64_t part) {
    Counts* c = &counts[static_cast<size_t>(part * kBytes)];
    for (int64_t i = bound(part); i < bound(part + 1); ++i) {
      const Key key = entries[i].key;
      for (int b = 0; b < kBytes; ++b) ++c[b][(key >> (8 * b)) & 0xff];
    }
  });
  RadixEntry<Key>* from = entries;
  RadixEntry<Key>* to = spare;
  bool counted = true;  // counts hold the chunks of `from` (true until the first pass moves entries)
  for (int b = 0; b < kBytes; ++b) {
    const int shift = 8 * b;
    Counts total{};
    for (int64_t part = 0; part < parts; ++part) {
      const Counts& c = counts[static_cast<size_t>(part * kBytes + b)];
      for (int d = 0; d < 256; ++d) total[d] += c[d];
    }
    if (std::find(total.begin(), total.end(), n) != total.end()) continue;  // one digit: nothing moves
    if (!counted) {
      ParallelFor(parts, [&](int64_t part) {
        Counts& c = counts[static_cast<size_t>(part * kBytes + b)];
        c.fill(0);
        for (int64_t i = bound(part); i < bound(part + 1); ++i) ++c[(from[i].key >> shift) & 0xff];
      });
    }
    // next[part][digit]: where the part's first entry of that digit goes.
    std::vector<Counts> next(static_cast<size_t>(parts));
    int64_t position = 0;
    for (int d = 0; d < 256; ++d) {
      for (int64_t part = 0; part < parts; ++part) {
        next[static_cast<size_t>(part)][d] = position;
        position += counts[static_cast<size_t>(part * kBytes + b)][d];
      }
    }
    ParallelFor(parts, [&](int64_t part) {
      Counts& slot = next[static_cast<size_t>(part)];
      for (int64_t i = bound(part); i < bound(part + 1); ++i) to[slot[(from[i].key >> shift) & 0xff]++] = from[i];
    });
    std::swap(from, to);
    counted = parts == 1;  // one chunk's counts are the whole line's, whatever the order
  }
  return from;
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_RADIX_SORT_H_
