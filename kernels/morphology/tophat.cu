// The tophat difference (image - opening, closing - image; xor for bool): one element-wise pass
// reading two arrays and writing one. Bytes moved: 3 * n * itemsize (192 MiB for 8192^2 uint8:
// 48 us at 4.2 TB/s); the shared vectorised map2 kernel is bandwidth bound, which is the design.
#include "kernels/core/elementwise.cuh"
#include "src/morphology/morph_ops.hpp"

namespace cuskimage::morphology::detail {

template <class T>
void cuda_tophat_sub(const Array& a, const Array& b, Array& out, const Stream& stream) {
  cuskimage::detail::cuda_map2<T, T, T>(a, b, out, TophatSubOp{}, stream.handle());
}

template void cuda_tophat_sub<bool>(const Array&, const Array&, Array&, const Stream&);
template void cuda_tophat_sub<std::uint8_t>(const Array&, const Array&, Array&, const Stream&);
template void cuda_tophat_sub<std::uint16_t>(const Array&, const Array&, Array&, const Stream&);
template void cuda_tophat_sub<std::int32_t>(const Array&, const Array&, Array&, const Stream&);
template void cuda_tophat_sub<float>(const Array&, const Array&, Array&, const Stream&);
template void cuda_tophat_sub<double>(const Array&, const Array&, Array&, const Stream&);

}  // namespace cuskimage::morphology::detail
