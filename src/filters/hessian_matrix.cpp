// skimage.feature.hessian_matrix (Gaussian-derivative form) and hessian_matrix_eigvals: validation,
// the Gaussian passes (ndimage::gaussian_filter, either backend) and the CPU eigenvalue loop.
#include "src/filters/hessian_matrix.hpp"

#include <cmath>
#include <string>

#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::filters::detail {

using cuskimage::detail::expect;

std::vector<Array> hessian_matrix(const Array& image, const HessianMatrixOptions& opts, const Stream& stream,
                                  const char* fn) {
  cuskimage::detail::expect_valid(image, fn, "image");
  const int n = image.ndim();
  expect(n >= 1 && n <= kMaxHessianDims, fn, "image", "must have 1 to ", kMaxHessianDims, " dimensions, got ", n);
  expect(!(opts.order_xy && n > 2), fn, "order", "'xy' is only supported for 2D images, got ndim ", n);
  const auto& sg = opts.sigma;
  expect(sg.size() == 1 || static_cast<int>(sg.size()) == n, fn, "sigma", "must hold one value or one per axis (",
         n, "), got ", sg.size());
  std::vector<double> sigma(static_cast<std::size_t>(n));
  bool all_above_one = true;
  for (int d = 0; d < n; ++d) {
    const double s = sg.size() == 1 ? sg[0] : sg[static_cast<std::size_t>(d)];
    expect(std::isfinite(s) && s > 0, fn, "sigma", "must be positive and finite, got ", s);
    all_above_one = all_above_one && s > 1;
    // scikit-image: sq1_2 * s with sq1_2 = 1 / math.sqrt(2) (same rounding steps).
    sigma[static_cast<std::size_t>(d)] = (1.0 / std::sqrt(2.0)) * s;
  }
  // Small sigmas approximate a slowly decaying sinc: scikit-image truncates far out for them.
  const double truncate = all_above_one ? 8.0 : 100.0;

  const Array img = cuskimage::util::img_as_float(image, {}, stream);
  std::vector<int> axes(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) axes[static_cast<std::size_t>(d)] = opts.order_xy ? n - 1 - d : d;
  auto derivative = [&](const Array& in, int axis) {
    std::vector<int> order(static_cast<std::size_t>(n), 0);
    order[static_cast<std::size_t>(axis)] = 1;
    return ndimage::gaussian_filter(
               in, sigma, {.order = order, .mode = opts.mode, .cval = opts.cval, .truncate = truncate}, stream)
        .contiguous(stream);
  };
  // First derivative along axes[i], then along axes[j] for j >= i (combinations_with_replacement);
  // one gradient is alive at a time.
  std::vector<Array> elems;
  elems.reserve(static_cast<std::size_t>(hessian_elems(n)));
  for (int i = 0; i < n; ++i) {
    const Array grad = derivative(img, axes[static_cast<std::size_t>(i)]);
    for (int j = i; j < n; ++j) elems.push_back(derivative(grad, axes[static_cast<std::size_t>(j)]));
  }
  return elems;
}

Array hessian_matrix_eigvals(const std::vector<Array>& elems, const Stream& stream) {
  const char* fn = "feature.hessian_matrix_eigvals";
  expect(!elems.empty(), fn, "H_elems", "must hold the Hessian's upper elements, got none");
  for (std::size_t i = 0; i < elems.size(); ++i) {
    cuskimage::detail::expect_valid(elems[i], fn, "H_elems");
    if (i > 0) {
      cuskimage::detail::expect_same_shape(elems[0], elems[i], fn, "H_elems[0]", "H_elems[" + std::to_string(i) + "]");
      cuskimage::detail::expect_same_device(elems[0], elems[i], fn, "H_elems[0]", "H_elems[" + std::to_string(i) + "]");
      expect(elems[i].dtype() == elems[0].dtype(), fn, "H_elems", "must share one dtype");
    }
  }
  const int n = elems[0].ndim();
  expect(n >= 1 && n <= kMaxHessianDims && static_cast<int>(elems.size()) == hessian_elems(n), fn, "H_elems",
         "must hold n(n+1)/2 arrays for n-dimensional arrays (", n >= 1 ? hessian_elems(n) : 0, " for ndim ", n,
         "), got ", elems.size());
  const DType dt = elems[0].dtype() == DType::float32 ? DType::float32 : DType::float64;
  std::vector<Array> h;
  h.reserve(elems.size());
  for (const auto& e : elems) h.push_back(e.dtype() == dt ? e.contiguous(stream) : e.astype(dt, stream));
  Shape shape = elems[0].shape();
  shape.insert(shape.begin(), n);
  Array out = Array::empty(shape, dt, elems[0].device(), stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(dt, fn, [&]<class T>() {
    cuskimage::detail::on_backend(
        out, stream, [&] { cpu_hessian_eigvals<T>(h, n, out); },
        [&](const Stream& s) { cuda_hessian_eigvals<T>(h, n, out, s); });
  });
  return out;
}

template <class T>
void cpu_hessian_eigvals(const std::vector<Array>& elems, int n, Array& out) {
  const int k = hessian_elems(n);
  const std::int64_t npix = elems[0].size();
  const T* h[kMaxHessianElems];
  for (int i = 0; i < k; ++i) h[i] = static_cast<const T*>(elems[static_cast<std::size_t>(i)].data());
  T* o = static_cast<T*>(out.data());
#pragma omp parallel for schedule(static) if (npix > 16384)
  for (std::int64_t p = 0; p < npix; ++p) {
    T v[kMaxHessianElems], e[kMaxHessianDims];
    for (int i = 0; i < k; ++i) v[i] = h[i][p];
    sym_eigvals(v, n, e);
    for (int i = 0; i < n; ++i) o[i * npix + p] = e[i];
  }
}

template void cpu_hessian_eigvals<float>(const std::vector<Array>&, int, Array&);
template void cpu_hessian_eigvals<double>(const std::vector<Array>&, int, Array&);

}  // namespace cuskimage::filters::detail
