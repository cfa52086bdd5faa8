// Backend entry points of the histogram thresholds: cpu_* in src/filters/threshold_cpu.cpp (OpenMP),
// cuda_* in kernels/filters/threshold.cu. Both fill a host result buffer (SelectResult header then
// values) for a validated, non-empty image of a supported dtype; the CUDA one synchronizes `stream`
// once, after the selection kernel, to copy that buffer back.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/filters/threshold.hpp"

namespace cuskimage::filters::detail {

void cpu_histogram_threshold(const Array& image, const SelectParams& p, std::vector<double>& result);
void cuda_histogram_threshold(const Array& image, const SelectParams& p, std::vector<double>& result,
                              const Stream& stream);

}  // namespace cuskimage::filters::detail

namespace cuskimage::filters::detail {

// ---- threshold_li on float images (float32, float64): the iteration runs on the host, each step
// one reduction on the backend that returns four scalars. Values are in the image's precision.
struct LiStats {
  double lo_nn = 0, hi_nn = 0;  // extremes of the non-NaN values (may be infinite)
  double lo_f = 0, hi_f = 0;    // extremes of the finite values
  long long n_nn = 0, n_f = 0;  // counts of non-NaN and finite values
};
struct LiSums {
  double sum_fg = 0, sum_bg = 0;  // float64 sums of (x - min) over x - min > t and the rest
  long long n_fg = 0, n_bg = 0;
};
LiStats cpu_li_stats(const Array& image);
LiStats cuda_li_stats(const Array& image, const Stream& stream);
/// Smallest positive difference between consecutive distinct values of (finite x) - min, or +inf.
double cpu_li_min_gap(const Array& image, double min);
double cuda_li_min_gap(const Array& image, double min, const Stream& stream);
/// Sums over the finite values; x - min is rounded to the image's precision first. CPU: NumPy's
/// pairwise sums in that precision (exact); CUDA: float64 sums (the means then differ by an ulp or two).
LiSums cpu_li_sums(const Array& image, double min, double t);
LiSums cuda_li_sums(const Array& image, double min, double t, const Stream& stream);

}  // namespace cuskimage::filters::detail
