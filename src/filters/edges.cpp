// skimage.filters edge filters: sobel, scharr, prewitt, farid (N-d, with axis/mode/cval), their 2-D
// _h/_v forms, roberts and its diagonals, laplace. Each builds scikit-image's float64 kernels and
// runs them as ndimage::convolve (the CPU oracle: scipy's double sums) followed by NumPy's element-
// wise steps in the image's float type (squares, sum, sqrt, / sqrt(ndim), * eroded mask). On CUDA, a
// 2-D float image takes one fused stencil kernel for the whole chain, and a 3-D volume one fused
// separable stencil (gradients, magnitude, mask in one pass; kernels/filters/edges.cu).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/tuning.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/policy_slot.hpp"
#include "src/core/validate.hpp"
#include "src/filters/edges.hpp"
#include "src/filters/stencil3d.hpp"

namespace cuskimage::filters {

using cuskimage::detail::expect;

namespace {

using FloatT = cuskimage::detail::Types<float, double>;

struct Weights1d {
  std::vector<double> edge, smooth;
};

enum class Family { sobel, scharr, prewitt, farid };

Weights1d family_weights(Family f) {
  switch (f) {
    case Family::sobel: return {{1, 0, -1}, {1.0 / 4, 2.0 / 4, 1.0 / 4}};
    case Family::scharr: return {{1, 0, -1}, {3.0 / 16, 10.0 / 16, 3.0 / 16}};
    case Family::prewitt: return {{1, 0, -1}, {1.0 / 3, 1.0 / 3, 1.0 / 3}};
    case Family::farid:
      // Farid & Simoncelli (2004), 5-tap derivative and prefilter (scikit-image's digits).
      return {{0.109603762960254, 0.276690988455557, 0, -0.276690988455557, -0.109603762960254},
              {0.0376593171958126, 0.249153396177344, 0.426374573253687, 0.249153396177344, 0.0376593171958126}};
  }
  return {};
}

/// scikit-image's kernel for the derivative along `edge_dim`: edge weights along it times the
/// smoothing weights along every other axis, multiplied in ascending axis order (float64, host).
Array edge_kernel(const Weights1d& w, int ndim, int edge_dim) {
  const std::int64_t k = static_cast<std::int64_t>(w.edge.size());
  Shape shape(ndim, k);
  Array K = Array::empty(shape, DType::float64);
  double* p = static_cast<double*>(K.data());
  std::vector<std::int64_t> idx(ndim);
  for (std::int64_t i = 0; i < K.size(); ++i) {
    std::int64_t rest = i;
    for (int d = ndim - 1; d >= 0; --d) idx[d] = rest % k, rest /= k;
    double v = w.edge[idx[edge_dim]];
    for (int d = 0; d < ndim; ++d)
      if (d != edge_dim) v = v * w.smooth[idx[d]];
    p[i] = v;
  }
  return K;
}

Array laplace_kernel(int ndim) {
  Array K = Array::zeros(Shape(ndim, 3), DType::float64);
  double* p = static_cast<double*>(K.data());
  std::int64_t centre = 0;
  for (int d = 0; d < ndim; ++d) centre = centre * 3 + 1;
  std::int64_t step = 1;
  for (int d = ndim - 1; d >= 0; --d, step *= 3) p[centre - step] = p[centre + step] = -1.0;
  p[centre] = 2.0 * ndim;
  return K;
}

Array kernel2(std::initializer_list<double> v) { return Array::from_vector(std::vector<double>(v), {2, 2}); }

/// What an edge filter computes: convolutions of the float image with `kernels`, then either the
/// single response or sqrt(sum of squares) / sqrt(root_n), then the eroded mask.
struct EdgePlan {
  std::vector<Array> kernels;  // host float64, the image's ndim
  bool magnitude = false;
  int root_n = 1;
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
  // The separable description the fused 3-D kernel uses: the family's 1-D weights and the axes of
  // `kernels` (generic_edge), or the laplace kernel.
  const Weights1d* sep = nullptr;
  std::vector<int> axes;
  bool laplace = false;
};

/// scipy's binary_erosion(mask, full structure, border_value=0) on the image's device, as bool.
Array eroded_mask(const Array& mask, const Array& image, std::string_view fn, const Stream& stream) {
  cuskimage::detail::expect_valid(mask, fn, "mask");
  expect(mask.shape() == image.shape(), fn, "mask", "must have the image's shape ", shape_str(image.shape()),
         ", got ", shape_str(mask.shape()));
  Array m = mask.to(image.device(), stream);
  if (m.dtype() != DType::bool_) m = m.astype(DType::bool_, stream);
  return ndimage::minimum_filter(m, {.size = {3}, .mode = ndimage::Mode::constant, .cval = 0.0}, stream);
}

/// The dense (2R+1)^2 correlation window of a convolution kernel of side 2, 3 or 5 (R = 1 or 2), as
/// scipy applies it: flipped, and an even side shifted by its origin rule to offsets {0, 1}.
bool dense_window(const Array& K, int R, double* w) {
  const std::int64_t s = K.shape()[0];
  if (K.ndim() != 2 || K.shape()[1] != s || (s != 2 && s != 2 * R + 1)) return false;
  const double* p = static_cast<const double*>(K.data());
  const int side = 2 * R + 1;
  std::fill(w, w + side * side, 0.0);
  for (std::int64_t i = 0; i < s; ++i)
    for (std::int64_t j = 0; j < s; ++j) {
      const double v = p[(s - 1 - i) * s + (s - 1 - j)];  // flipped
      const std::int64_t off = s % 2 == 0 ? 0 : s / 2;    // tap i sits at offset i - off
      w[(i - off + R) * side + (j - off + R)] = v;
    }
  return true;
}

Array run_plan(const Array& image, const EdgePlan& plan, const Array& mask, std::string_view fn,
               const Stream& stream) {
  const Array fimg = detail::float_image(image, false, stream);
  const Array em = mask.valid() ? eroded_mask(mask, image, fn, stream) : Array();
  Array result;
  cuskimage::detail::dispatch<FloatT>(fimg.dtype(), fn, [&]<class T>() {
    // Runs a fused stencil (2-D or 3-D plan `st`) into `result`; false when the kernel declines.
    auto run_fused = [&](auto& st, auto launch) {
      st.root_ndim = static_cast<double>(std::sqrt(static_cast<T>(plan.root_n)));
      st.mode = static_cast<int>(plan.mode);
      st.cval = plan.cval;
      cuskimage::detail::DeviceGuard guard(fimg.device().index());
      const Array src = fimg.contiguous(stream);
      const Array m = em.valid() ? em.contiguous(stream) : Array();
      Array out = Array::empty(fimg.shape(), fimg.dtype(), fimg.device(), stream);
      if (!launch(src, out, m)) return false;
      result = std::move(out);
      return true;
    };
    // CUDA, 2-D: the fused stencil.
    if (!fimg.device().is_cpu() && fimg.ndim() == 2 && plan.kernels.size() <= 2) {
      detail::Stencil2d s;
      s.R = plan.kernels[0].shape()[0] == 5 ? 2 : 1;
      s.two = plan.kernels.size() == 2;
      bool ok = dense_window(plan.kernels[0], s.R, s.wa) && (!s.two || dense_window(plan.kernels[1], s.R, s.wb));
      ok = ok && (s.two == plan.magnitude);
      if (ok && run_fused(s, [&](const Array& src, Array& out, const Array& m) {
            return detail::cuda_stencil2d<T>(src, out, s, m, stream);
          }))
        return;
    }
    // CUDA, 3-D: the fused separable stencil (gradients and magnitude in one pass).
    if (!fimg.device().is_cpu() && fimg.ndim() == 3 && (plan.laplace || plan.sep)) {
      detail::Stencil3d s;
      bool ok = true;
      if (plan.laplace) {
        s.laplace = true;
      } else {
        const std::size_t k = plan.sep->edge.size();
        s.R = static_cast<int>(k / 2);
        for (std::size_t i = 0; i < k; ++i) {  // convolution -> correlation: flipped
          s.edge[i] = plan.sep->edge[k - 1 - i];
          s.smooth[i] = plan.sep->smooth[k - 1 - i];
        }
        for (int a : plan.axes) {
          ok = ok && !(s.axes & (1 << a));  // a repeated axis keeps the generic sum
          s.axes |= 1 << a;
        }
        s.magnitude = plan.magnitude;
        ok = ok && (plan.magnitude || plan.axes.size() == 1);
      }
      if (ok && run_fused(s, [&](const Array& src, Array& out, const Array& m) {
            return detail::cuda_stencil3d<T>(src, out, s, m, stream);
          }))
        return;
    }
    // Generic: scikit-image's sequence of convolutions and element-wise steps.
    Array acc;
    for (const Array& K : plan.kernels) {
      Array ax = ndimage::convolve(fimg, K, {.mode = plan.mode, .cval = plan.cval}, stream);
      if (!plan.magnitude) {
        acc = std::move(ax);
        continue;
      }
      if (!acc.valid()) acc = Array::zeros(fimg.shape(), fimg.dtype(), fimg.device(), stream);
      Array next = Array::empty(fimg.shape(), fimg.dtype(), fimg.device(), stream);
      cuskimage::detail::on_backend(
          fimg, stream, [&] { cuskimage::detail::cpu_map2<T, T, T>(acc, ax, next, detail::AddSquareOp{}); },
          [&](const Stream& st) { detail::cuda_add_square<T>(acc, ax, next, st); });
      acc = std::move(next);
    }
    if (plan.magnitude) {
      const T root = std::sqrt(static_cast<T>(plan.root_n));
      cuskimage::detail::on_backend(
          fimg, stream, [&] { cuskimage::detail::cpu_map<T, T>(acc, acc, detail::MagnitudeOp<T>{root}); },
          [&](const Stream& st) { detail::cuda_magnitude<T>(acc, acc, root, st); });
    }
    if (em.valid()) {
      Array masked = Array::empty(fimg.shape(), fimg.dtype(), fimg.device(), stream);
      cuskimage::detail::on_backend(
          fimg, stream, [&] { cuskimage::detail::cpu_map2<T, bool, T>(acc, em, masked, detail::MaskOp{}); },
          [&](const Stream& st) { detail::cuda_mask<T>(acc, em, masked, st); });
      acc = std::move(masked);
    }
    result = std::move(acc);
  });
  return result;
}

void check_image(const Array& image, std::string_view fn) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least 1 dimension, got 0-D");
}

void check_2d(const Array& image, std::string_view fn) {
  check_image(image, fn);
  expect(image.ndim() == 2, fn, "image", "must be a 2-dimensional array, got ", image.ndim(), "-D");
}

Array generic_edge(const Array& image, Family f, const EdgeOptions& o, std::string_view fn, const Stream& stream) {
  check_image(image, fn);
  expect(static_cast<int>(o.mode) >= 0 && static_cast<int>(o.mode) <= 4, fn, "mode", "must be a valid Mode, got ",
         static_cast<int>(o.mode));
  const int nd = image.ndim();
  std::vector<int> axes;
  if (o.axis.empty())
    for (int d = 0; d < nd; ++d) axes.push_back(d);
  else
    for (int a : o.axis) axes.push_back(cuskimage::detail::normalize_axis(a, nd, fn, "axis"));
  const Weights1d w = family_weights(f);
  EdgePlan plan;
  for (int a : axes) plan.kernels.push_back(edge_kernel(w, nd, a));
  plan.sep = &w;
  plan.axes = axes;
  plan.magnitude = axes.size() > 1;
  plan.root_n = nd;
  plan.mode = o.mode;
  plan.cval = o.cval;
  return run_plan(image, plan, o.mask, fn, stream);
}

Array single_2d(const Array& image, Array kernel, const Array& mask, std::string_view fn, const Stream& stream) {
  check_2d(image, fn);
  EdgePlan plan;
  plan.kernels.push_back(std::move(kernel));
  return run_plan(image, plan, mask, fn, stream);
}

}  // namespace

Array sobel(const Array& image, const EdgeOptions& opts, const Stream& stream) {
  return generic_edge(image, Family::sobel, opts, "filters.sobel", stream);
}
Array scharr(const Array& image, const EdgeOptions& opts, const Stream& stream) {
  return generic_edge(image, Family::scharr, opts, "filters.scharr", stream);
}
Array prewitt(const Array& image, const EdgeOptions& opts, const Stream& stream) {
  return generic_edge(image, Family::prewitt, opts, "filters.prewitt", stream);
}
Array farid(const Array& image, const EdgeOptions& opts, const Stream& stream) {
  return generic_edge(image, Family::farid, opts, "filters.farid", stream);
}

#define CUSK_EDGE_HV(NAME, FAMILY, AXIS)                                                       \
  Array NAME(const Array& image, const Array& mask, const Stream& stream) {                  \
    check_2d(image, "filters." #NAME);                                                        \
    return single_2d(image, edge_kernel(family_weights(FAMILY), 2, AXIS), mask, "filters." #NAME, stream); \
  }
CUSK_EDGE_HV(sobel_h, Family::sobel, 0)
CUSK_EDGE_HV(sobel_v, Family::sobel, 1)
CUSK_EDGE_HV(scharr_h, Family::scharr, 0)
CUSK_EDGE_HV(scharr_v, Family::scharr, 1)
CUSK_EDGE_HV(prewitt_h, Family::prewitt, 0)
CUSK_EDGE_HV(prewitt_v, Family::prewitt, 1)
CUSK_EDGE_HV(farid_h, Family::farid, 0)
CUSK_EDGE_HV(farid_v, Family::farid, 1)
#undef CUSK_EDGE_HV

Array roberts_pos_diag(const Array& image, const Array& mask, const Stream& stream) {
  return single_2d(image, kernel2({1, 0, 0, -1}), mask, "filters.roberts_pos_diag", stream);
}

Array roberts_neg_diag(const Array& image, const Array& mask, const Stream& stream) {
  return single_2d(image, kernel2({0, 1, -1, 0}), mask, "filters.roberts_neg_diag", stream);
}

Array roberts(const Array& image, const Array& mask, const Stream& stream) {
  constexpr std::string_view fn = "filters.roberts";
  check_2d(image, fn);
  EdgePlan plan;
  plan.kernels.push_back(kernel2({1, 0, 0, -1}));
  plan.kernels.push_back(kernel2({0, 1, -1, 0}));
  plan.magnitude = true;
  plan.root_n = 2;
  return run_plan(image, plan, mask, fn, stream);
}

Array laplace(const Array& image, const LaplaceOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.laplace";
  check_image(image, fn);
  EdgePlan plan;
  plan.kernels.push_back(laplace_kernel(image.ndim()));
  plan.laplace = image.ndim() == 3;
  return run_plan(image, plan, opts.mask, fn, stream);
}

}  // namespace cuskimage::filters

namespace cuskimage::tuning {
CUSK_TUNING_POLICY(StencilPolicy, stencil_policy)
}  // namespace cuskimage::tuning
