// skimage.transform.finite_radon_transform (scikit-image 0.26): frt2, ifrt2.
#pragma once

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::transform {

/// skimage.transform.frt2: the finite Radon transform of a square n x n array (n prime for an
/// invertible transform): uint32 (n + 1, n), row m < n the sums along the wrapped lines of slope m,
/// row n the row sums. Integer sums wrap into uint32 as numpy's assignment does; float inputs are
/// summed in float64 and truncated. Asynchronous.
Array frt2(const Array& a, const Stream& stream = {});

/// skimage.transform.ifrt2: the inverse of frt2 for an (n + 1) x n unsigned-integer (or bool) array:
/// float64 n x n, with numpy's uint32 / uint64 wrap-around in the intermediate sums. Asynchronous.
Array ifrt2(const Array& a, const Stream& stream = {});

}  // namespace cuskimage::transform
