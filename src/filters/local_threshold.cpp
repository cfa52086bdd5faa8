// threshold_local, threshold_niblack, threshold_sauvola. threshold_local runs the ndimage filters on
// the image converted to its float type; niblack/sauvola reproduce scikit-image's _mean_std
// (NumPy-'reflect' padding by (w//2 + 1, w//2), float64 integral images of the padded image and of
// its square in F, the 2^ndim corner sum in itertools.product order) and its final formulas in F.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/filters/local_threshold.hpp"

namespace cuskimage::filters {
namespace detail {

/// NumPy cumsum along `axis` of a contiguous double array, in place (sequential, as NumPy).
void cpu_cumsum_axis(std::vector<double>& a, const Shape& shape, int axis) {
  std::int64_t inner = 1;
  for (int d = axis + 1; d < static_cast<int>(shape.size()); ++d) inner *= shape[d];
  const std::int64_t n = shape[axis], outer = shape_size(shape) / (n * inner);
#pragma omp parallel for schedule(static) if (outer * inner > 4096)
  for (std::int64_t oi = 0; oi < outer * inner; ++oi) {
    const std::int64_t o = oi / inner, i = oi % inner;
    double* p = a.data() + o * n * inner + i;
    for (std::int64_t k = 1; k < n; ++k) p[k * inner] += p[(k - 1) * inner];
  }
}

/// The signed 2^ndim corner sum of integral image `I` (padded shape `ps`) for output element
/// coordinates c, in itertools.product((0, w0), (0, w1), ...) order; sign -1 when ndim % 2 differs
/// from the parity of the corner's count of w's.
template <class Get>
double corner_sum(int nd, const std::int64_t* c, const std::vector<std::int64_t>& w, const Get& get) {
  const int corners = 1 << nd;
  double acc = 0.0;
  for (int q = 0; q < corners; ++q) {
    std::int64_t idx[cuskimage::detail::kMaxDims];
    int cnt = 0;
    for (int d = 0; d < nd; ++d) {
      const bool hi = (q >> (nd - 1 - d)) & 1;  // product order: last axis fastest
      idx[d] = c[d] + (hi ? w[d] : 0);
      cnt += hi;
    }
    const double v = get(idx);
    const double term = (nd % 2 != cnt % 2) ? -v : v;
    acc = q == 0 ? term : acc + term;
  }
  return acc;
}

template <class F>
void cpu_mean_std_threshold(const Array& img, Array& out, const MeanStdPlan& P, LocalKind kind, double k, double r) {
  const int nd = img.ndim();
  Shape ps(nd);
  for (int d = 0; d < nd; ++d) ps[d] = img.shape()[d] + P.w[d];
  const std::int64_t np_ = shape_size(ps);
  std::vector<double> I(np_), I2(np_);
  const F* ip = static_cast<const F*>(img.data());
#pragma omp parallel for schedule(static) if (np_ > 32768)
  for (std::int64_t i = 0; i < np_; ++i) {
    std::int64_t rest = i, off = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const std::int64_t p = rest % ps[d];
      rest /= ps[d];
      off += pad_index(p, P.w[d] / 2 + 1, img.shape()[d], ndimage::Mode::mirror) * img.strides()[d];
    }
    const F v = ip[off];
    I[i] = static_cast<double>(v);
    I2[i] = static_cast<double>(mul_rn(v, v));
  }
  for (int d = 0; d < nd; ++d) cpu_cumsum_axis(I, ps, d), cpu_cumsum_axis(I2, ps, d);
  Strides pst = contiguous_strides(ps);
  F* op = static_cast<F*>(out.data());
  const std::int64_t total = out.size();
#pragma omp parallel for schedule(static) if (total > 32768)
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t c[cuskimage::detail::kMaxDims];
    std::int64_t rest = i;
    for (int d = nd - 1; d >= 0; --d) c[d] = rest % out.shape()[d], rest /= out.shape()[d];
    auto at = [&](const std::vector<double>& A) {
      return [&](const std::int64_t* idx) {
        std::int64_t o = 0;
        for (int d = 0; d < nd; ++d) o += idx[d] * pst[d];
        return A[o];
      };
    };
    const double s1 = corner_sum(nd, c, P.w, at(I)), s2 = corner_sum(nd, c, P.w, at(I2));
    op[i] = local_formula<F>(s1, s2, static_cast<double>(P.total), kind, k, r);
  }
}

template <class F>
void cpu_subtract(const Array& in, Array& out, double offset) {
  const F* ip = static_cast<const F*>(in.data());
  F* op = static_cast<F*>(out.data());
  const F o = static_cast<F>(offset);
  for (std::int64_t i = 0; i < in.size(); ++i) op[i] = ip[i] - o;
}

}  // namespace detail

namespace {

using cuskimage::detail::expect;
using detail::LocalKind;

std::vector<std::int64_t> sizes_per_axis(const std::vector<std::int64_t>& v, int nd, std::string_view fn,
                                         std::string_view arg) {
  expect(v.size() == 1 || static_cast<int>(v.size()) == nd, fn, arg,
         "must have one value or one per axis (len(", arg, ") must equal image.ndim = ", nd, "), got ", v.size(),
         " values");
  std::vector<std::int64_t> s = v.size() == 1 ? std::vector<std::int64_t>(nd, v[0]) : v;
  for (auto b : s) expect(b >= 1, fn, arg, "must be positive, got ", b);
  return s;
}

void check_image(const Array& image, std::string_view fn) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1 && image.ndim() <= cuskimage::detail::kMaxDims, fn, "image", "must have 1 to ",
         cuskimage::detail::kMaxDims, " dimensions, got ", image.ndim());
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric, got bool");
}

DType float_type(DType dt) { return dt == DType::float32 ? DType::float32 : DType::float64; }

Array mean_std_threshold(const Array& image, const std::vector<std::int64_t>& window_size, LocalKind kind, double k,
                         std::optional<double> r_opt, std::string_view fn, const Stream& stream) {
  check_image(image, fn);
  detail::MeanStdPlan P;
  P.w = sizes_per_axis(window_size, image.ndim(), fn, "window_size");
  for (auto w : P.w) {
    expect(w % 2 == 1, fn, "window_size", "must not be even on any dimension, got ", w);
    P.total *= w;
  }
  double r = 0;
  if (kind == LocalKind::sauvola) {
    const auto lim = util::dtype_limits(image.dtype(), false);
    r = r_opt ? *r_opt : 0.5 * (lim.imax - lim.imin);
  }
  const DType F = float_type(image.dtype());
  const Array img = image.astype(F, stream);
  Array out = Array::empty(image.shape(), F, image.device(), stream);
  if (out.size() == 0) return out;
  cuskimage::detail::on_backend(
      img, stream,
      [&] {
        if (F == DType::float32) detail::cpu_mean_std_threshold<float>(img, out, P, kind, k, r);
        else detail::cpu_mean_std_threshold<double>(img, out, P, kind, k, r);
      },
      [&](const Stream& s) {
        if (img.ndim() > detail::kLocalMaxDims)
          cuskimage::detail::fail<NotSupported>(fn, "argument 'image' must be 1-D to 3-D on a CUDA device, got ",
                                                img.ndim(), "-D");
        if (F == DType::float32) detail::cuda_mean_std_threshold<float>(img, out, P, kind, k, r, s);
        else detail::cuda_mean_std_threshold<double>(img, out, P, kind, k, r, s);
      });
  return out;
}

/// scipy.ndimage.generic_filter with a full block: the callable sees the window in C order.
template <class F>
void cpu_generic(const Array& img, Array& out, const std::vector<std::int64_t>& block, ndimage::Mode mode,
                 double cval, const std::function<double(const std::vector<double>&)>& f) {
  const int nd = img.ndim();
  const std::int64_t K = shape_size(block), total = img.size();
  const F* ip = static_cast<const F*>(img.data());
  F* op = static_cast<F*>(out.data());
  std::vector<double> buf(static_cast<std::size_t>(K));
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t c[cuskimage::detail::kMaxDims];
    std::int64_t rest = i;
    for (int d = nd - 1; d >= 0; --d) c[d] = rest % img.shape()[d], rest /= img.shape()[d];
    for (std::int64_t t = 0; t < K; ++t) {
      std::int64_t tr = t, off = 0;
      bool outside = false;
      for (int d = nd - 1; d >= 0; --d) {
        const std::int64_t j = tr % block[d];
        tr /= block[d];
        const std::int64_t idx = ndimage::detail::map_index(c[d] + j - block[d] / 2, img.shape()[d], mode);
        if (idx < 0) outside = true;
        else off += idx * img.strides()[d];
      }
      buf[t] = outside ? cval : static_cast<double>(ip[off]);
    }
    op[i] = static_cast<F>(f(buf));
  }
}

}  // namespace

Array threshold_local(const Array& image, const ThresholdLocalOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.threshold_local";
  check_image(image, fn);
  const int nd = image.ndim();
  const auto block = sizes_per_axis(opts.block_size, nd, fn, "block_size");
  for (auto b : block) expect(b % 2 == 1, fn, "block_size", "must be odd, got ", b);
  expect(static_cast<int>(opts.mode) >= 0 && static_cast<int>(opts.mode) <= 4, fn, "mode", "must be a valid Mode");
  const DType F = float_type(image.dtype());
  const Array img = image.astype(F, stream);
  Array filtered;
  switch (opts.method) {
    case ThresholdLocalMethod::gaussian: {
      std::vector<double> sigma;
      if (opts.param.empty()) {
        for (auto b : block) sigma.push_back((static_cast<double>(b) - 1.0) / 6.0);
      } else {
        expect(opts.param.size() == 1 || static_cast<int>(opts.param.size()) == nd, fn, "param",
               "(sigma) must have one value or one per axis, got ", opts.param.size());
        sigma = opts.param;
      }
      filtered = ndimage::gaussian_filter(img, sigma, {.mode = opts.mode, .cval = opts.cval, .truncate = 4.0}, stream);
      break;
    }
    case ThresholdLocalMethod::mean:
      filtered = ndimage::uniform_filter(img, {.size = block, .mode = opts.mode, .cval = opts.cval}, stream);
      break;
    case ThresholdLocalMethod::median:
      filtered = median(img, {.footprint = Array::full(block, 1, DType::uint8), .mode = opts.mode, .cval = opts.cval},
                        stream);
      break;
    case ThresholdLocalMethod::generic: {
      expect(static_cast<bool>(opts.function), fn, "function", "must be set for method 'generic'");
      if (!img.device().is_cpu())
        cuskimage::detail::fail<NotSupported>(fn, "method 'generic' (a C++ callable) runs on CPU arrays only");
      filtered = Array::empty(img.shape(), F);
      if (F == DType::float32) cpu_generic<float>(img, filtered, block, opts.mode, opts.cval, opts.function);
      else cpu_generic<double>(img, filtered, block, opts.mode, opts.cval, opts.function);
      break;
    }
    default:
      cuskimage::detail::fail(fn, "argument 'method' must be gaussian, mean, median or generic (Invalid method "
                                  "specified)");
  }
  if (opts.offset == 0.0) return filtered;
  const Array src = filtered.contiguous(stream);
  Array out = Array::empty(img.shape(), F, img.device(), stream);
  cuskimage::detail::on_backend(
      src, stream,
      [&] {
        if (F == DType::float32) detail::cpu_subtract<float>(src, out, opts.offset);
        else detail::cpu_subtract<double>(src, out, opts.offset);
      },
      [&](const Stream& s) {
        if (F == DType::float32) detail::cuda_subtract<float>(src, out, opts.offset, s);
        else detail::cuda_subtract<double>(src, out, opts.offset, s);
      });
  return out;
}

Array threshold_niblack(const Array& image, const ThresholdNiblackOptions& opts, const Stream& stream) {
  return mean_std_threshold(image, opts.window_size, LocalKind::niblack, opts.k, std::nullopt,
                            "filters.threshold_niblack", stream);
}

Array threshold_sauvola(const Array& image, const ThresholdSauvolaOptions& opts, const Stream& stream) {
  return mean_std_threshold(image, opts.window_size, LocalKind::sauvola, opts.k, opts.r, "filters.threshold_sauvola",
                            stream);
}

}  // namespace cuskimage::filters
