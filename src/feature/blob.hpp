// Internal: the scale-space layers of blob_log / blob_dog (per-pixel code shared by the CPU backend
// in blob.cpp and kernels/feature/blob.cu) and the host pruning shared by every blob detector.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

constexpr int kBlobMaxTerms = 8;  // image axes a Laplacian layer sums (blob_log's ndim limit)

/// One layer value: LoG -(t0 + t1 + ...) * scale, summed in T as scipy's generic_laplace does;
/// DoG (t0 - t1) * scale.
template <class T>
CUSK_HD T blob_layer_value(const T* const* terms, int n, bool dog, T scale, std::int64_t i) {
  if (dog) return (terms[0][i] - terms[1][i]) * scale;
  T v = terms[0][i];
  for (int a = 1; a < n; ++a) v = v + terms[a][i];
  return -v * scale;
}

/// cube[..., k] (cube contiguous, image.shape + (K,)) = the layer of the terms (contiguous, the
/// image's shape, the cube's dtype, on the cube's device).
void cuda_blob_layer(const std::vector<Array>& terms, bool dog, double scale, Array& cube, std::int64_t k,
                     const Stream& stream);

/// scikit-image's _prune_blobs on rows of `cols` doubles (coordinates, then sigma_dim sigmas):
/// returns the kept rows in their order. Pairs are visited in Python's iteration order of the set
/// scipy's query_pairs returns (see include/cuskimage/feature/blob.hpp).
std::vector<double> prune_blobs(std::vector<double> rows, int cols, int sigma_dim, double overlap);

}  // namespace cuskimage::feature::detail
