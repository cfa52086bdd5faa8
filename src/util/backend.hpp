// Backend entry points of the util module: cpu_* in src/util/*.cpp (OpenMP), cuda_* in
// kernels/util/*.cu (asynchronous on `stream` unless they return host values). Arguments are
// validated by the public functions (src/util/*.cpp) before these run; operands share one device.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/util/dtype_math.hpp"
#include "src/util/functors.hpp"
#include "src/util/reduce.hpp"

namespace cuskimage::util::detail {

// ---- element-wise --------------------------------------------------------------------------------
/// dst = src converted with img_as_* semantics (dtypes from the arrays, same shape, any strides).
void cpu_convert(const Array& src, Array& dst, const ConvertPlan& plan);
void cuda_convert_to_float(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream);
void cuda_convert_to_small_int(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream);
void cuda_convert_to_large_int(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream);
void cuda_convert_to_bool(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream);

void cpu_invert(const Array& src, Array& dst, bool signed_float);
void cuda_invert(const Array& src, Array& dst, bool signed_float, const Stream& stream);

/// fimg: float32/float64 image; out: same dtype and shape.
void cpu_noise(const Array& fimg, Array& out, const NoiseParams& p);
void cuda_noise(const Array& fimg, Array& out, const NoiseParams& p, const Stream& stream);
/// local_vars: float64, broadcast (stride-0 view) to fimg's shape.
void cpu_localvar_noise(const Array& fimg, const Array& local_vars, Array& out, const NoiseParams& p);
void cuda_localvar_noise(const Array& fimg, const Array& local_vars, Array& out, const NoiseParams& p,
                         const Stream& stream);

/// compare_images on two arrays of one float dtype.
enum class CompareOp { diff, blend, checkerboard };
struct CompareParams {
  CompareOp op = CompareOp::diff;
  std::int64_t cols = 1, stepx = 0, stepy = 0, tiles_x = 8, tiles_y = 8;
};
void cpu_compare(const Array& a, const Array& b, Array& out, const CompareParams& p);
void cuda_compare(const Array& a, const Array& b, Array& out, const CompareParams& p, const Stream& stream);

/// montage: rescale each image k of stack `src` (K, ...) into dst with params (K x 4 float64,
/// same device) = (imin, imax, omin, omax).
void cpu_rescale_stack(const Array& src, Array& dst, const Array& params);
void cuda_rescale_stack(const Array& src, Array& dst, const Array& params, const Stream& stream);
/// montage: out (H, W, C) contiguous from src (K, M, N, C) any strides; fill: C values (contiguous,
/// src's dtype, same device).
void cpu_montage(const Array& src, Array& out, const Array& fill, std::int64_t pad, std::int64_t ntiles_col);
void cuda_montage(const Array& src, Array& out, const Array& fill, std::int64_t pad, std::int64_t ntiles_col,
                  const Stream& stream);

/// map_array: keys = input_vals already in input_arr's dtype; values = output_vals in out's dtype;
/// both 1-D contiguous on the device of input_arr.
void cpu_map_array(const Array& input_arr, const Array& keys, const Array& values, Array& out);
void cuda_map_array(const Array& input_arr, const Array& keys, const Array& values, Array& out, const Stream& stream);

/// dst (any strides) element i (C order) = i + 1 converted to dst's dtype.
void cpu_iota(Array& dst);
void cuda_iota(Array& dst, const Stream& stream);

/// label_points: out (zeroed uint64 of `shape`) gets label i + 1 at rounded coords row i; the
/// largest label wins where points coincide. Coordinates already validated.
void cpu_label_points(const Array& coords, Array& out);
void cuda_label_points(const Array& coords, Array& out, const Stream& stream);

/// unique_rows of a 2-D contiguous array, lexicographic by bytes. Synchronizes (cuda).
Array cpu_unique_rows(const Array& ar);
Array cuda_unique_rows(const Array& ar, const Stream& stream);

/// apply_parallel: out (contiguous, src's dtype) = the block at `origin` with its halo.
struct HaloParams {
  std::vector<std::int64_t> origin;
  HaloMode mode = HaloMode::reflect;
  double cval = 0.0;
};
void cpu_halo_gather(const Array& src, Array& out, const HaloParams& p);

/// The per-pixel functors' parameters, filled in one place for both backends.
template <class T>
MontageFn<T> make_montage_fn(const Array& src, const Array& out, const Array& fill, std::int64_t pad,
                             std::int64_t ntiles_col) {
  MontageFn<T> f;
  f.src = static_cast<const T*>(src.data());
  for (int d = 0; d < 4; ++d) f.s[d] = src.strides()[d];
  f.n_images = src.shape()[0];
  f.n_rows = src.shape()[1];
  f.n_cols = src.shape()[2];
  f.n_chan = src.shape()[3];
  f.pad = pad;
  f.ntiles_col = ntiles_col;
  f.out_cols = out.shape()[1];
  f.fill = static_cast<const T*>(fill.data());
  return f;
}

template <class T>
HaloGatherFn<T> make_halo_gather_fn(const Array& src, const Array& out, const HaloParams& p) {
  HaloGatherFn<T> f;
  f.src = static_cast<const T*>(src.data());
  f.ndim = src.ndim();
  for (int d = 0; d < src.ndim(); ++d) {
    f.shape[d] = out.shape()[d];
    f.origin[d] = p.origin[d];
    f.src_shape[d] = src.shape()[d];
    f.src_stride[d] = src.strides()[d];
  }
  f.mode = p.mode;
  f.cval = cuskimage::detail::convert<T>(p.cval);
  return f;
}

void cuda_halo_gather(const Array& src, Array& out, const HaloParams& p, const Stream& stream);

// ---- reductions (synchronize; results on the host) -------------------------------------------------
/// One result per segment: segments > 1 splits `a` along axis 0 (one segment per index).
template <class T>
std::vector<MinMax<T>> cpu_minmax(const Array& a, std::int64_t segments);
template <class T>
std::vector<MinMax<T>> cuda_minmax(const Array& a, std::int64_t segments, const Stream& stream);
template <class T>
std::vector<double> cpu_sum(const Array& a, std::int64_t segments);
template <class T>
std::vector<double> cuda_sum(const Array& a, std::int64_t segments, const Stream& stream);
/// Number of elements <= 0 of a float64 array.
std::int64_t cpu_count_nonpositive(const Array& a);
std::int64_t cuda_count_nonpositive(const Array& a, const Stream& stream);
/// Number of distinct values (NaNs count once) of a float32/float64 array.
std::int64_t cpu_count_unique(const Array& a);
std::int64_t cuda_count_unique(const Array& a, const Stream& stream);

}  // namespace cuskimage::util::detail
