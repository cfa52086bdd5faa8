// filters.median: scikit-image's two behaviours (scipy.ndimage.median_filter and
// skimage.filters.rank.median) turned into a MedianPlan, plus the CPU backend (the oracle: gather
// the window as doubles, nth_element, cast back).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/filters/median.hpp"
#include "src/ndimage/boundary.hpp"

namespace cuskimage::filters {
namespace detail {

template <class T>
void cpu_median(const Array& in, Array& out, const MedianPlan& P) {
  const int nd = in.ndim();
  const std::int64_t total = in.size();
  const std::size_t K = P.off.size();
  if (total == 0) return;
  const auto& shape = in.shape();
  const T* ip = static_cast<const T*>(in.data());
  T* op = static_cast<T*>(out.data());
#pragma omp parallel if (total > 16384)
  {
    std::vector<double> buf(K);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < total; ++i) {
      std::int64_t c[cuskimage::detail::kMaxDims];
      std::int64_t rest = i, ooff = 0;
      for (int d = nd - 1; d >= 0; --d) {
        c[d] = rest % shape[d];
        rest /= shape[d];
        ooff += c[d] * out.strides()[d];
      }
      std::size_t n = 0;
      for (std::size_t t = 0; t < K; ++t) {
        std::int64_t off = 0;
        bool outside = false;
        for (int d = 0; d < nd && !outside; ++d) {
          const std::int64_t p = c[d] + P.off[t][d];
          if (P.skip_outside) {
            if (p < 0 || p >= shape[d]) outside = true;
            else off += p * in.strides()[d];
            continue;
          }
          const std::int64_t idx = ndimage::detail::map_index(p, shape[d], P.mode);
          if (idx < 0) outside = true;
          else off += idx * in.strides()[d];
        }
        if (!outside) buf[n++] = static_cast<double>(ip[off]);
        else if (!P.skip_outside) buf[n++] = P.cval;
      }
      if (n == 0) {
        op[ooff] = T(0);
        continue;
      }
      const std::size_t r = n / 2;
      std::nth_element(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(r),
                       buf.begin() + static_cast<std::ptrdiff_t>(n));
      op[ooff] = median_cast<T>(buf[r]);
    }
  }
}

#define CUSK_MEDIAN_CPU(T) template void cpu_median<T>(const Array&, Array&, const MedianPlan&);
CUSK_MEDIAN_CPU(std::uint8_t)
CUSK_MEDIAN_CPU(std::int8_t)
CUSK_MEDIAN_CPU(std::uint16_t)
CUSK_MEDIAN_CPU(std::int16_t)
CUSK_MEDIAN_CPU(std::uint32_t)
CUSK_MEDIAN_CPU(std::int32_t)
CUSK_MEDIAN_CPU(std::uint64_t)
CUSK_MEDIAN_CPU(std::int64_t)
CUSK_MEDIAN_CPU(float)
CUSK_MEDIAN_CPU(double)
#undef CUSK_MEDIAN_CPU

}  // namespace detail

namespace {

using cuskimage::detail::expect;
using MedianTypes = cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                                             std::int32_t, std::uint64_t, std::int64_t, float, double>;
constexpr std::string_view kFn = "filters.median";

detail::MedianPlan make_plan(const Array& image, const Array& footprint, const Stream& stream) {
  const int nd = image.ndim();
  detail::MedianPlan P;
  std::vector<double> fv;
  if (footprint.valid()) {
    expect(footprint.ndim() == nd, kFn, "footprint", "must have the image's ndim ", nd, ", got ", footprint.ndim(),
           "-D (footprint array has incorrect shape)");
    for (int d = 0; d < nd; ++d)
      expect(footprint.shape()[d] >= 1, kFn, "footprint", "must have no empty axis, got shape ",
             shape_str(footprint.shape()));
    const Array h = footprint.to(Device::cpu(), stream).astype(DType::float64);
    const double* p = static_cast<const double*>(h.data());
    fv.assign(p, p + h.size());
    P.fshape = footprint.shape();
  } else {
    P.fshape.assign(nd, 3);  // ndi.generate_binary_structure(ndim, ndim): all ones
    fv.assign(static_cast<std::size_t>(shape_size(P.fshape)), 1.0);
  }
  std::vector<std::int64_t> c(nd);
  for (std::size_t i = 0; i < fv.size(); ++i) {
    std::int64_t rest = static_cast<std::int64_t>(i);
    for (int d = nd - 1; d >= 0; --d) c[d] = rest % P.fshape[d], rest /= P.fshape[d];
    if (fv[i] == 0.0) continue;
    std::vector<std::int64_t> off(nd);
    for (int d = 0; d < nd; ++d) off[d] = c[d] - P.fshape[d] / 2;
    P.off.push_back(std::move(off));
  }
  P.full = P.off.size() == fv.size();
  return P;
}

void run(const Array& image, Array& out, const detail::MedianPlan& P, const Stream& stream) {
  cuskimage::detail::dispatch<MedianTypes>(image.dtype(), kFn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { detail::cpu_median<T>(image, out, P); },
        [&](const Stream& s) {
          if (image.ndim() > 3)
            cuskimage::detail::fail<NotSupported>(kFn, "argument 'image' must be 1-D, 2-D or 3-D on a CUDA device, got ",
                                                  image.ndim(), "-D (the CPU backend takes any ndim)");
          const Array src = image.contiguous(stream);
          if (out.is_contiguous()) {
            detail::cuda_median<T>(src, out, P, s);
          } else {
            Array tmp = Array::empty(image.shape(), image.dtype(), image.device(), stream);
            detail::cuda_median<T>(src, tmp, P, s);
            out.copy_from(tmp, stream);
          }
        });
  });
}

void check_out(const Array& image, const Array& out, DType dtype) {
  cuskimage::detail::expect_valid(out, kFn, "out");
  cuskimage::detail::expect_same_shape(image, out, kFn, "image", "out");
  cuskimage::detail::expect_same_device(image, out, kFn, "image", "out");
  expect(out.dtype() == dtype, kFn, "out", "must have dtype ", dtype_name(dtype), ", got ", dtype_name(out.dtype()));
}

/// Returns the image the filter runs on (rank: uint8/uint16, else img_as_ubyte) and validates.
Array prepare(const Array& image, const MedianOptions& o, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() >= 1, kFn, "image", "must have at least 1 dimension, got 0-D");
  expect(static_cast<int>(o.mode) >= 0 && static_cast<int>(o.mode) <= 4, kFn, "mode", "must be a valid Mode");
  if (o.behavior == MedianBehavior::rank) {
    expect(image.ndim() == 2 || image.ndim() == 3, kFn, "image",
           "must be 2-D or 3-D with behavior='rank', got ", image.ndim(), "-D");
    expect(image.dtype() != DType::bool_, kFn, "image", "dtype cannot be bool (behavior='rank')");
    if (image.dtype() != DType::uint8 && image.dtype() != DType::uint16) return util::img_as_ubyte(image, {}, stream);
    return image.share();
  }
  expect(image.dtype() != DType::bool_, kFn, "image", "must be numeric, got bool");
  expect(image.ndim() <= cuskimage::detail::kMaxDims, kFn, "image", "must have at most ",
         cuskimage::detail::kMaxDims, " dimensions");
  return image.share();
}

detail::MedianPlan plan_for(const Array& img, const MedianOptions& o, const Stream& stream) {
  if (o.behavior == MedianBehavior::rank) expect(!o.footprint.valid() || o.footprint.ndim() == img.ndim(), kFn,
                                                 "footprint", "must have the image's ndim (Image dimensions and "
                                                 "neighborhood dimensions do not match)");
  detail::MedianPlan P = make_plan(img, o.footprint, stream);
  if (o.behavior == MedianBehavior::rank) {
    P.skip_outside = true;
  } else {
    expect(!P.off.empty(), kFn, "footprint", "must have at least one true element (All-zero footprint is not "
                                             "supported)");
    P.mode = o.mode;
    P.cval = o.cval;
  }
  return P;
}

}  // namespace

Array median(const Array& image, const MedianOptions& opts, const Stream& stream) {
  const Array img = prepare(image, opts, stream);
  const detail::MedianPlan P = plan_for(img, opts, stream);
  Array out = Array::empty(img.shape(), img.dtype(), img.device(), stream);
  run(img, out, P, stream);
  return out;
}

void median_into(const Array& image, Array& out, const MedianOptions& opts, const Stream& stream) {
  const Array img = prepare(image, opts, stream);
  check_out(img, out, img.dtype());
  const detail::MedianPlan P = plan_for(img, opts, stream);
  run(img, out, P, stream);
}

}  // namespace cuskimage::filters
