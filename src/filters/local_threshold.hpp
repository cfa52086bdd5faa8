// Private pieces of correlate_sparse, threshold_niblack/sauvola (_mean_std) and rank_order shared by
// the CPU backend (src/filters/*.cpp) and the CUDA kernels (kernels/filters/local_threshold.cu).
//
// scikit-image computes these with NumPy array arithmetic, so every step rounds in the array's
// dtype: F = float32 for float32 images, float64 otherwise. The helpers below round the same way
// on both backends (explicit _rn intrinsics on the device: no FMA contraction).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::filters::detail {

using cuskimage::detail::add_rn;  // rounded once on both backends (src/core/rn.hpp)
using cuskimage::detail::mul_rn;

constexpr int kLocalMaxDims = 3;  // CUDA paths (the CPU backend takes any ndim)

/// correlate_sparse plan: the terms in scikit-image's order (the zero corner first when the kernel
/// has none), each an offset into the padded image (per axis, kernel index) and a value in F.
struct SparsePlan {
  std::vector<std::vector<std::int64_t>> idx;  // [term][axis]
  std::vector<double> val;                     // [term] (exact in F)
  std::vector<std::int64_t> kshape;
  bool valid = false;                          // mode 'valid': no padding
  ndimage::Mode mode = ndimage::Mode::reflect; // scipy mode equivalent of NumPy's pad mode
};

/// Sample of the padded image at padded coordinate p along an axis of extent n (pad `before`):
/// the source index, or -1 for a zero (np.pad 'constant').
CUSK_HD std::int64_t pad_index(std::int64_t p, std::int64_t before, std::int64_t n, ndimage::Mode mode);

/// Local mean and standard deviation inputs: the window per axis (odd) and the combination signs
/// of the 2^ndim integral-image corners in itertools.product order.
struct MeanStdPlan {
  std::vector<std::int64_t> w;
  std::int64_t total = 1;  // prod(w)
};

enum class LocalKind : int { niblack, sauvola };

/// The final formula of threshold_niblack (m - k s) or threshold_sauvola (m (1 + k (s / r - 1))),
/// from the two integral-window sums in double (already signed and summed), in F's arithmetic.
template <class F>
CUSK_HD F local_formula(double sum1, double sum2, double total, LocalKind kind, double k, double r) {
  F m = static_cast<F>(sum1);
  m = m / static_cast<F>(total);
  F g2 = static_cast<F>(sum2);
  g2 = g2 / static_cast<F>(total);
  F var = add_rn(g2, -mul_rn(m, m));
  if (!(var > F(0))) var = var != var ? var : F(0);  // np.clip(., 0, None) keeps NaN
  const F s = std::sqrt(var);
  if (kind == LocalKind::niblack) return add_rn(m, -mul_rn(static_cast<F>(k), s));
  const F t = add_rn(s / static_cast<F>(r), F(-1));
  return mul_rn(m, add_rn(F(1), mul_rn(static_cast<F>(k), t)));
}

// ---- CUDA entry points (contiguous arrays, ndim <= 3) -------------------------------------------
/// out (F, output shape) = sparse correlation of `in` (F, contiguous).
template <class F>
void cuda_correlate_sparse(const Array& in, Array& out, const SparsePlan& plan, const Stream& stream);
/// out (F) = niblack/sauvola threshold of `in` (F, contiguous).
template <class F>
void cuda_mean_std_threshold(const Array& in, Array& out, const MeanStdPlan& plan, LocalKind kind, double k, double r,
                             const Stream& stream);
/// out = in - offset in F (contiguous, same shape).
template <class F>
void cuda_subtract(const Array& in, Array& out, double offset, const Stream& stream);
/// rank_order on the device: labels (uint8/16/32/64 per `labels`' dtype) and the unique values;
/// returns the unique values (1-D, T) after one stream synchronization.
template <class T>
Array cuda_rank_order(const Array& in, Array& labels, const Stream& stream);

}  // namespace cuskimage::filters::detail

#include "src/ndimage/boundary.hpp"

namespace cuskimage::filters::detail {
CUSK_HD std::int64_t pad_index(std::int64_t p, std::int64_t before, std::int64_t n, ndimage::Mode mode) {
  return ndimage::detail::map_index(p - before, n, mode);
}
}  // namespace cuskimage::filters::detail
