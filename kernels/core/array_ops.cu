// CUDA backend of the core Array operations: dtype conversion / strided copy and fill.
// Bytes moved: read src once, write dst once; contiguous aligned operands use 16-byte packets.
#include <cstring>

#include "kernels/core/elementwise.cuh"
#include "src/core/backend.hpp"
#include "src/core/convert.hpp"
#include "src/core/dispatch.hpp"

namespace cuskimage::detail {

template <class U>
__global__ void fill_kernel(U* __restrict__ out, Indexer oi, std::int64_t n, bool contiguous, U v) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[contiguous ? i : oi.offset(i)] = v;
}

void cuda_convert(const Array& src, Array& dst, const Stream& stream) {
  dispatch<AllTypes>(src.dtype(), "Array::astype", [&]<class In>() {
    dispatch<AllTypes>(dst.dtype(), "Array::astype",
                       [&]<class Out>() { cuda_map<In, Out>(src, dst, Convert<Out, In>{}, stream.handle()); });
  });
}

void cuda_fill(Array& dst, const void* element, const Stream& stream) {
  // Fill needs only the element's bytes: one kernel per width, not per dtype.
  auto run = [&]<class U>() {
    U v;
    std::memcpy(&v, element, sizeof(U));
    const Layout L = layout_of({&dst});
    fill_kernel<U><<<map_blocks(L.size()), kMapThreads, 0, stream.handle()>>>(static_cast<U*>(dst.data()), L.indexer(0),
                                                                              L.size(), L.contiguous(0), v);
    CUSK_CUDA_CHECK_LAUNCH();
  };
  switch (dst.itemsize()) {
    case 1: return run.template operator()<std::uint8_t>();
    case 2: return run.template operator()<std::uint16_t>();
    case 4: return run.template operator()<std::uint32_t>();
    default: return run.template operator()<std::uint64_t>();
  }
}

}  // namespace cuskimage::detail
