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
/// DoG (t0 - t1) * scale. term(a) reads term a at the pixel (a fixed-bound loop: the CUDA kernel's
/// term pointers stay in the parameter block).
template <class T, class Term>
CUSK_HD T blob_layer_value(const Term& term, int n, bool dog, T scale) {
  if (dog) return (term(0) - term(1)) * scale;
  T v = term(0);
  CUSK_UNROLL
  for (int a = 1; a < kBlobMaxTerms; ++a)
    if (a < n) v = v + term(a);
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
