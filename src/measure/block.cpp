// skimage.measure.block_reduce: argument handling, the CPU loop (one output block per iteration)
// and the CUDA entry (kernels/measure/block.cu).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/convert.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/block.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::on_backend;

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;

DType block_out_dtype(DType in, BlockFunc f) {
  switch (f) {
    case BlockFunc::sum:
      if (in == DType::bool_ || in == DType::int8 || in == DType::int16 || in == DType::int32 || in == DType::int64)
        return DType::int64;
      if (in == DType::uint8 || in == DType::uint16 || in == DType::uint32 || in == DType::uint64)
        return DType::uint64;
      return in;
    case BlockFunc::mean:
    case BlockFunc::median:
      return in == DType::float32 ? DType::float32 : DType::float64;
    default:
      return in;
  }
}

}  // namespace

Array block_reduce(const Array& image, const std::vector<std::int64_t>& block_size, const BlockReduceOptions& opts,
                   const Stream& stream) {
  constexpr std::string_view fn = "measure.block_reduce";
  expect_valid(image, fn, "image");
  const int nd = image.ndim();
  expect(nd >= 1 && nd <= cuskimage::detail::kMaxDims, fn, "image", "must have 1 to ", cuskimage::detail::kMaxDims,
         " dimensions, got ", nd);
  std::vector<std::int64_t> bs = block_size;
  if (bs.size() == 1) bs.assign(nd, block_size[0]);
  expect(static_cast<int>(bs.size()) == nd, fn, "block_size",
         "must be a scalar or have the same length as `image.shape` (", nd, "), got ", block_size.size(), " values");
  detail::BlockReduceParams p;
  p.ndim = nd;
  p.func = static_cast<int>(opts.func);
  Shape out_shape(nd);
  for (int d = 0; d < nd; ++d) {
    expect(bs[d] >= 1, fn, "block_size",
           "down-sampling factors must be >= 1 (use skimage.transform.resize to up-sample), got ", bs[d]);
    out_shape[d] = (image.shape(d) + bs[d] - 1) / bs[d];
    p.in_shape[d] = image.shape(d);
    p.in_stride[d] = image.strides()[d];
    p.out_shape[d] = out_shape[d];
    p.block[d] = bs[d];
    p.block_elems *= bs[d];
  }
  Array out = Array::empty(out_shape, block_out_dtype(image.dtype(), opts.func), image.device(), stream);
  if (out.size() == 0) return out;
  dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    on_backend(
        image, stream,
        [&] {
          const T* in = static_cast<const T*>(image.data());
          const T pad = cuskimage::detail::convert<T>(opts.cval);
          const std::int64_t n = out.size();
          std::vector<double> buf;
#pragma omp parallel for schedule(static) private(buf)
          for (std::int64_t o = 0; o < n; ++o) {
            std::int64_t oc[cuskimage::detail::kMaxDims];
            std::int64_t rem = o;
            for (int d = nd - 1; d >= 0; --d) oc[d] = rem % out_shape[d], rem /= out_shape[d];
            std::int64_t bc[cuskimage::detail::kMaxDims] = {};
            using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                                           std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>,
                                                              std::uint64_t, std::int64_t>>;
            Acc acc = 0;
            double dacc = 0.0;  // np.mean accumulates in float64
            T ext = T{};
            bool first = true, nan = false;
            buf.clear();
            for (std::int64_t e = 0; e < p.block_elems; ++e) {
              bool inside = true;
              std::int64_t off = 0;
              for (int d = 0; d < nd; ++d) {
                const std::int64_t x = oc[d] * bs[d] + bc[d];
                inside = inside && x < p.in_shape[d];
                off += x * p.in_stride[d];
              }
              const T v = inside ? in[off] : pad;
              if constexpr (is_float_v<T>) nan = nan || v != v;
              switch (opts.func) {
                case BlockFunc::sum:
                  acc = static_cast<Acc>(acc + static_cast<Acc>(v));
                  break;
                case BlockFunc::mean:
                  dacc += static_cast<double>(v);
                  break;
                case BlockFunc::max:
                  if (first || v > ext) ext = v;
                  break;
                case BlockFunc::min:
                  if (first || v < ext) ext = v;
                  break;
                case BlockFunc::median:
                  buf.push_back(static_cast<double>(v));
                  break;
              }
              first = false;
              for (int d = nd - 1; d >= 0; --d) {
                if (++bc[d] < bs[d]) break;
                bc[d] = 0;
              }
            }
            const double qnan = std::numeric_limits<double>::quiet_NaN();
            switch (opts.func) {
              case BlockFunc::sum:
                if constexpr (is_float_v<T>) static_cast<T*>(out.data())[o] = static_cast<T>(acc);
                else static_cast<Acc*>(out.data())[o] = acc;
                break;
              case BlockFunc::mean: {
                const double m = dacc / static_cast<double>(p.block_elems);
                if (out.dtype() == DType::float32) static_cast<float*>(out.data())[o] = static_cast<float>(m);
                else static_cast<double*>(out.data())[o] = m;
                break;
              }
              case BlockFunc::max:
              case BlockFunc::min:
                if constexpr (is_float_v<T>) static_cast<T*>(out.data())[o] = nan ? T(qnan) : ext;
                else static_cast<T*>(out.data())[o] = ext;
                break;
              case BlockFunc::median: {
                double m;
                const std::size_t k = buf.size();
                if (nan) {
                  m = qnan;
                } else {
                  std::nth_element(buf.begin(), buf.begin() + k / 2, buf.end());
                  const double hi = buf[k / 2];
                  if (k % 2) {
                    m = hi;
                  } else {
                    const double lo = *std::max_element(buf.begin(), buf.begin() + k / 2);
                    m = out.dtype() == DType::float32 ? static_cast<double>(static_cast<float>(lo + hi) / 2.0f)
                                                      : (lo + hi) / 2.0;
                  }
                }
                if (out.dtype() == DType::float32) static_cast<float*>(out.data())[o] = static_cast<float>(m);
                else static_cast<double*>(out.data())[o] = m;
                break;
              }
            }
          }
        },
        [&](const auto&) { detail::cuda_block_reduce<T>(image, out, p, opts.cval, stream); });
  });
  return out;
}

}  // namespace cuskimage::measure
