// Element-wise maps of h_maxima / h_minima (src/morphology/recon_ops.hpp) on the shared vectorised
// map kernels: each reads its inputs once and writes once (8192^2 uint8 shift: 128 MiB, 32 us at
// 4.2 TB/s; the residue reads the image and the float64 reconstruction and writes uint8: 0.6 GB,
// 0.15 ms).
#include "kernels/core/elementwise.cuh"
#include "src/morphology/recon_ops.hpp"

namespace cuskimage::morphology::detail {

template <class T>
void cuda_h_shift_int(const Array& in, Array& out, std::int64_t h, bool maxima, const Stream& stream) {
  cuskimage::detail::cuda_map<T, T>(in, out, HShiftInt<T>{h, maxima}, stream.handle());
}
template <class F>
void cuda_h_shift_float(const Array& in, Array& out, F h, bool maxima, const Stream& stream) {
  cuskimage::detail::cuda_map<F, F>(in, out, HShiftFloat<F>{h, maxima}, stream.handle());
}
template <class T, class F>
void cuda_h_residue(const Array& image, const Array& rec, Array& out, F h, bool maxima, const Stream& stream) {
  cuskimage::detail::cuda_map2<T, F, std::uint8_t>(image, rec, out, HResidue<F>{h, maxima}, stream.handle());
}

template void cuda_h_shift_int<std::uint8_t>(const Array&, Array&, std::int64_t, bool, const Stream&);
template void cuda_h_shift_int<std::uint16_t>(const Array&, Array&, std::int64_t, bool, const Stream&);
template void cuda_h_shift_int<std::int32_t>(const Array&, Array&, std::int64_t, bool, const Stream&);
template void cuda_h_shift_float<float>(const Array&, Array&, float, bool, const Stream&);
template void cuda_h_shift_float<double>(const Array&, Array&, double, bool, const Stream&);
template void cuda_h_residue<std::uint8_t, double>(const Array&, const Array&, Array&, double, bool, const Stream&);
template void cuda_h_residue<std::uint16_t, double>(const Array&, const Array&, Array&, double, bool, const Stream&);
template void cuda_h_residue<std::int32_t, double>(const Array&, const Array&, Array&, double, bool, const Stream&);
template void cuda_h_residue<float, float>(const Array&, const Array&, Array&, float, bool, const Stream&);
template void cuda_h_residue<double, double>(const Array&, const Array&, Array&, double, bool, const Stream&);

}  // namespace cuskimage::morphology::detail
