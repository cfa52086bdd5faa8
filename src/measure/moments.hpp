// Private interface of the whole-image moments (src/measure/moments.cpp): the CUDA entries.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "cuskimage/array.hpp"

namespace cuskimage::measure::detail {

/// out (contiguous float64 (order+1)^ndim, device) = sum I(x) prod_a (x_a s_a - c_a)^p_a, the axes
/// contracted one after another as scikit-image's einsum does. `image` contiguous on the device;
/// `center` a device pointer to ndim doubles, or null for 0.
void cuda_moments(const Array& image, const std::vector<double>& spacing, const double* center, int order, Array& out,
                  const Stream& stream);
/// out[a] = m1[e_a] / m1[0] from order-1 raw moments ((2,)*ndim float64, device).
void cuda_centroid_from_m1(const Array& m1, Array& out, const Stream& stream);
/// Moments of (K, D) contiguous float64 coordinates about `center` (device, D doubles; null: the
/// coordinates' mean), shape (order+1)^D float64.
void cuda_moments_coords(const Array& coords, const double* center, int order, Array& out, const Stream& stream);
/// scikit-image's central moments about the centroid keep only power sums <= order, and the
/// first-order ones are 0 exactly: zero those entries of `mu` ((order+1)^ndim float64, device).
void cuda_zero_outside_order(Array& mu, int order, const Stream& stream);
void cuda_moments_normalized(const Array& mu, int order, double scale, Array& out, const Stream& stream);
void cuda_moments_hu(const Array& nu, Array& out, const Stream& stream);
void cuda_inertia_tensor(const Array& mu, Array& out, const Stream& stream);

}  // namespace cuskimage::measure::detail
