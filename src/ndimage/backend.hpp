// Backend entry points of the ndimage module: a 1-D pass along one axis and an N-d window (taps)
// filter, each with a CPU implementation (src/ndimage/cpu_filters.cpp) and a CUDA one
// (kernels/ndimage/pass1d.cu, kernels/ndimage/window_nd.cu). The public functions in ndimage.cpp
// validate, translate scipy's arguments into these plans and pick the backend.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/ndimage/window.hpp"

namespace cuskimage::ndimage::detail {

/// A 1-D filter along one axis: output[i] = op(window input[i - left .. i - left + k - 1]).
struct Pass1d {
  Op op = Op::correlate;
  std::int64_t k = 1;     // window length
  std::int64_t left = 0;  // samples before the output position: k / 2 + origin
  Mode mode = Mode::reflect;
  double cval = 0.0;
  std::vector<double> w;  // correlate: the k weights
  int symmetry = 0;       // correlate: see weight_symmetry
};

/// An N-d window given by its taps (offsets from the output position per axis, C order).
struct WindowNd {
  Op op = Op::correlate;  // correlate, minimum or maximum
  Mode mode = Mode::reflect;
  double cval = 0.0;
  std::vector<std::vector<std::int64_t>> off;  // [tap][axis]
  std::vector<double> w;                       // [tap] (correlate)
};

/// CPU: any strides for `in` and `out`; `out` may be `in` itself (lines are buffered first).
template <class T>
void cpu_pass1d(const Array& in, Array& out, int axis, const Pass1d& p);
/// CPU: any strides; `out` must not overlap `in`.
template <class T>
void cpu_window_nd(const Array& in, Array& out, const WindowNd& w);

/// CUDA: `in` and `out` contiguous, distinct, same shape.
template <class T>
void cuda_pass1d(const Array& in, Array& out, int axis, const Pass1d& p, const Stream& stream);
/// CUDA: `in` and `out` contiguous, distinct, ndim <= 3.
template <class T>
void cuda_window_nd(const Array& in, Array& out, const WindowNd& w, const Stream& stream);

/// The `output` of an *_into call: valid, and the input's shape, device and dtype.
void check_output(const Array& in, const Array& out, std::string_view fn);

}  // namespace cuskimage::ndimage::detail
