// CUDA backend of the util module's element-wise and gather operations: invert, random_noise,
// compare_images, montage (per-image rescale + tile gather), regular_seeds' labels and
// apply_parallel's halo gather. The per-pixel math is in src/util/{dtype_math,functors}.hpp,
// shared with the CPU backend.
//
// Bytes moved (8192^2 uint8 invert): 67 MB read + 67 MB written, floor 0.032 ms at 4.2 TB/s; it
// takes core's 16-byte vector path (16 pixels per thread per packet). random_noise reads and writes
// the float image once (8 or 16 bytes per pixel) and is bound by the Philox + polar-method math.
#include "kernels/util/common.cuh"
#include "src/core/dispatch.hpp"
#include "src/util/backend.hpp"

namespace cuskimage::util::detail {

using cuskimage::detail::cuda_map;
using cuskimage::detail::cuda_map2;
using cuskimage::detail::dispatch;

void cuda_invert(const Array& src, Array& dst, bool signed_float, const Stream& stream) {
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.invert", [&]<class T>() {
    cuda_map<T, T>(src, dst, Invert<T>{signed_float}, stream.handle());
  });
}

void cuda_noise(const Array& fimg, Array& out, const NoiseParams& p, const Stream& stream) {
  dispatch<cuskimage::detail::FloatTypes>(
      fimg.dtype(), "util.random_noise", [&]<class T>() { cuda_map<T, T>(fimg, out, NoiseFn<T>{p}, stream.handle()); });
}

void cuda_localvar_noise(const Array& fimg, const Array& local_vars, Array& out, const NoiseParams& p,
                         const Stream& stream) {
  dispatch<cuskimage::detail::FloatTypes>(fimg.dtype(), "util.random_noise", [&]<class T>() {
    cuda_map2<T, double, T>(fimg, local_vars, out, LocalVarNoiseFn<T>{p}, stream.handle());
  });
}

void cuda_compare(const Array& a, const Array& b, Array& out, const CompareParams& p, const Stream& stream) {
  dispatch<cuskimage::detail::FloatTypes>(a.dtype(), "util.compare_images", [&]<class T>() {
    switch (p.op) {
      case CompareOp::diff:
        return cuda_map2<T, T, T>(a, b, out, DiffFn<T>{}, stream.handle());
      case CompareOp::blend:
        return cuda_map2<T, T, T>(a, b, out, BlendFn<T>{}, stream.handle());
      case CompareOp::checkerboard:
        return cuda_map2<T, T, T>(a, b, out, CheckerboardFn<T>{p.cols, p.stepx, p.stepy, p.tiles_x, p.tiles_y},
                                  stream.handle());
    }
  });
}

void cuda_rescale_stack(const Array& src, Array& dst, const Array& params, const Stream& stream) {
  const std::int64_t image_size = src.shape()[0] > 0 ? src.size() / src.shape()[0] : 1;
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.montage", [&]<class T>() {
    cuda_map<T, T>(src, dst, RescaleStackFn<T>{static_cast<const double*>(params.data()), image_size}, stream.handle());
  });
}

void cuda_montage(const Array& src, Array& out, const Array& fill, std::int64_t pad, std::int64_t ntiles_col,
                  const Stream& stream) {
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.montage", [&]<class T>() {
    const auto f = make_montage_fn<T>(src, out, fill, pad, ntiles_col);
    cuda_generate<T>(out, f, stream);
  });
}

void cuda_iota(Array& dst, const Stream& stream) {
  dispatch<cuskimage::detail::AllTypes>(dst.dtype(), "util.regular_seeds",
                                        [&]<class T>() { cuda_generate<T>(dst, IotaFn<T>{}, stream); });
}

void cuda_halo_gather(const Array& src, Array& out, const HaloParams& p, const Stream& stream) {
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.apply_parallel", [&]<class T>() {
    const auto f = make_halo_gather_fn<T>(src, out, p);
    cuda_generate<T>(out, f, stream);
  });
}

}  // namespace cuskimage::util::detail
