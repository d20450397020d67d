// What the Native Sparse Attention families share: a paged key/value cache read through a block table
// (aclnnNsaCompressWithCache, aclnnNsaCompressAttentionInfer), one query row's softmax attention
// (aclnnNsaSelectedAttention, aclnnNsaCompressAttention and its inference form) and the TND layout's cumulative
// sequence ends, so that the operators read tokens, sequences and weigh keys one way.
#ifndef ACLNN_SIM_OPAPI_FAMILIES_NSA_COMMON_H_
#define ACLNN_SIM_OPAPI_FAMILIES_NSA_COMMON_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "opapi/families/family.h"

namespace aclsim {

// The cache row of token p of batch b: row p % page of the block table[b, p / page] names, in a cache of pages of
// `page` rows ([blocks, page, ...]) whose table has `per_batch` blocks per batch.
inline int64_t PagedRow(const int64_t* table, int64_t per_batch, int64_t page, int64_t b, int64_t p) {
  return table[b * per_batch + p / page] * page + p % page;
}

// Empty when tokens [first, end) of batch b have blocks in the table, each inside the cache's `cache_blocks`; else
// why not, naming the table and the batch's length (`length_name`[b] = `length`), for phase 2's failure: the
// table is device data.
inline std::string PagedBlocksMissing(const std::string& table_name, const int64_t* table, int64_t per_batch,
                                      int64_t page, const std::string& cache_name, int64_t cache_blocks,
                                      const std::string& length_name, int64_t b, int64_t length, int64_t first,
                                      int64_t end) {
  for (int64_t k = first / page; k <= (end - 1) / page; ++k) {
    if (k >= per_batch) {
      return length_name + "[" + std::to_string(b) + "] is " + std::to_string(length) + ", past the " +
             std::to_string(per_batch) + " blocks of " + std::to_string(page) + " tokens " + table_name + " gives it";
    }
    const int64_t named = table[b * per_batch + k];
    if (named < 0 || named >= cache_blocks) {
      return table_name + "[" + std::to_string(b) + ", " + std::to_string(k) + "] is " + std::to_string(named) +
             ", outside " + cache_name + "'s " + std::to_string(cache_blocks) + " blocks";
    }
  }
  return {};
}

// The largest of `count` scores, NaN when one is NaN (as torch.max and the goldens' softmax): std::max_element
// compares, and NaN compares false, so its answer depended on where the NaN stood (NaN first: NaN; later:
// skipped), which the edge-value campaign found in the softmax statistics.
inline double RowMax(const double* s, int64_t count) {
  double top = -INFINITY;
  for (int64_t j = 0; j < count; ++j) {
    if (std::isnan(s[j])) return s[j];
    top = std::max(top, s[j]);
  }
  return top;
}

// One query row's attention over `keys` keys: s[j] holds its scaled scores on entry and exp(s[j] - max) on return,
// out[0, dv) = softmax(s) V with value_at(j) value j's row; returns the sum of exp(s - max) (*max its max).
template <class ValueAt>
double AttendRow(double* s, int64_t keys, int64_t dv, ValueAt value_at, double* out, double* max) {
  *max = RowMax(s, keys);
  double total = 0;
  for (int64_t j = 0; j < keys; ++j) total += s[j] = std::exp(s[j] - *max);
  std::fill_n(out, dv, 0.0);
  for (int64_t j = 0; j < keys; ++j) {
    const float* vj = value_at(j);
    const double p = s[j] / total;
    for (int64_t d = 0; d < dv; ++d) out[d] += p * vj[d];
  }
  return total;
}

// The cumulative sequence ends of `role` (required with TND), rising from 0 to `total`.
inline aclnnStatus ReadSequenceEnds(const Call& call, const FamilySpec& family, int role, int64_t total, Dims* ends) {
  const ParamRejecter reject(call, family);
  if (!RoleInts(call, family, role, ends) || ends->empty()) {
    return reject(role, "is required with the TND layout (each sequence's cumulative end)");
  }
  int64_t last = 0;
  for (int64_t e : *ends) {
    if (e < last) return reject(role, DimsText(*ends) + " does not rise from 0 (cumulative sequence ends)");
    last = e;
  }
  if (last != total) return reject(role, DimsText(*ends) + " ends at " + std::to_string(last) + ", not at T " + std::to_string(total));
  return ACLNN_SUCCESS;
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_NSA_COMMON_H_
