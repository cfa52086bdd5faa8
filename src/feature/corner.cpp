// skimage.feature.corner, the differential part: structure_tensor (+ eigenvalues), hessian_matrix
// (both forms), hessian_matrix_det (SURF approximation or exact), hessian_matrix_eigvals,
// shape_index and the structure-tensor corner responses (harris, shi_tomasi, foerstner,
// kitchen_rosenfeld). The steps are scikit-image's, composed from ndimage's filters (either
// backend) and the element-wise functors of src/feature/corner.hpp; on the GPU a 2-D structure
// tensor and its responses take one fused kernel (kernels/feature/corner.cu) instead.
#include "src/feature/corner.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "cuskimage/feature.hpp"
#include "cuskimage/transform/integral.hpp"
#include "cuskimage/util.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::feature {
namespace detail {

using cuskimage::detail::expect;

Array ndi_sobel(const Array& image, int axis, ndimage::Mode mode, double cval, const Stream& stream) {
  const Array diff = Array::from_vector<double>({-1.0, 0.0, 1.0}, {3});
  const Array smooth = Array::from_vector<double>({1.0, 2.0, 1.0}, {3});
  Array out = ndimage::correlate1d(image, diff, {.axis = axis, .mode = mode, .cval = cval}, stream);
  for (int a = 0; a < image.ndim(); ++a)
    if (a != axis) out = ndimage::correlate1d(out, smooth, {.axis = a, .mode = mode, .cval = cval}, stream);
  return out.contiguous(stream);
}

Array prepare_float(const Array& image, const char* fn, int lo, int hi, bool scale, const Stream& stream) {
  cuskimage::detail::expect_valid(image, fn, "image");
  Array img = image.share();
  for (int a = img.ndim() - 1; a >= 0 && img.ndim() > lo; --a)
    if (img.shape(a) == 1) img = img.squeeze(a);
  expect(img.ndim() >= lo && img.ndim() <= hi, fn, "image", lo == hi ? "must be " : "must have ", lo,
         lo == hi ? "-D" : " to ", lo == hi ? std::string() : std::to_string(hi) + " dimensions",
         ", got shape with ", img.ndim(), " dimensions (after squeezing)");
  if (scale) img = util::img_as_float(img, {}, stream);
  const DType dt = img.dtype() == DType::float32 ? DType::float32 : DType::float64;
  return img.dtype() == dt ? img.contiguous(stream) : img.astype(dt, stream);
}

namespace {

std::vector<double> sigma_per_axis(const filters::Sigma& s, int ndim, const char* fn) {
  expect(s.v.size() == 1 || static_cast<int>(s.v.size()) == ndim, fn, "sigma",
         "must have as many elements as image has axes (", ndim, "), got ", s.v.size());
  std::vector<double> out(static_cast<std::size_t>(ndim));
  for (int a = 0; a < ndim; ++a) {
    out[static_cast<std::size_t>(a)] = s.v.size() == 1 ? s.v[0] : s.v[static_cast<std::size_t>(a)];
    expect(out[static_cast<std::size_t>(a)] >= 0, fn, "sigma", "values less than zero are not valid");
  }
  return out;
}

Array like(const Array& a, const Stream& s) { return Array::empty(a.shape(), a.dtype(), a.device(), s); }

template <class T>
T* ptr(const Array& a) {
  return static_cast<T*>(a.data());
}

/// structure tensor elements (or, with resp, the response) of a prepared float image.
std::vector<Array> tensor(const Array& img, const std::vector<double>& sigma, ndimage::Mode mode, double cval,
                          bool xy, const Response* resp, double param, const Stream& stream) {
  const int n = img.ndim();
  const int k = filters::detail::hessian_elems(n);
  std::vector<Array> out;
  bool fused = false;
  if (!img.device().is_cpu() && n == 2) {
    cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), "feature.structure_tensor", [&]<class T>() {
      const int m = resp ? (*resp == Response::foerstner ? 2 : 1) : 3;
      for (int i = 0; i < m; ++i) out.push_back(like(img, stream));
      T* elems[3] = {nullptr, nullptr, nullptr};
      if (!resp)
        for (int i = 0; i < 3; ++i) elems[i] = ptr<T>(out[static_cast<std::size_t>(i)]);
      cuskimage::detail::DeviceGuard guard(img.device().index());
      fused = cuda_structure_tensor_2d<T>(img, sigma, mode, cval, elems, resp, static_cast<T>(param),
                                          resp ? ptr<T>(out[0]) : nullptr, m == 2 ? ptr<T>(out[1]) : nullptr,
                                          stream);
    });
    if (fused) {
      if (xy && !resp) std::swap(out[0], out[2]);
      return out;
    }
    out.clear();
  }
  std::vector<Array> d;
  for (int a = 0; a < n; ++a) d.push_back(ndi_sobel(img, a, mode, cval, stream));
  if (xy) std::swap(d[0], d[1]);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), "feature.structure_tensor", [&]<class T>() {
    Products<T> f{};
    f.n = n;
    for (int a = 0; a < n; ++a) f.d[a] = ptr<T>(d[static_cast<std::size_t>(a)]);
    for (int i = 0; i < k; ++i) {
      out.push_back(like(img, stream));
      f.out[i] = ptr<T>(out.back());
    }
    for_each_index(img, img.size(), f, stream);
  });
  d.clear();
  for (auto& e : out)
    e = ndimage::gaussian_filter(e, sigma, {.mode = mode, .cval = cval, .truncate = 4.0}, stream).contiguous(stream);
  if (!resp) return out;
  std::vector<Array> r;
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), "feature.structure_tensor", [&]<class T>() {
    r.push_back(like(img, stream));
    if (*resp == Response::foerstner) r.push_back(like(img, stream));
    TensorResponse<T> f{ptr<T>(out[0]), ptr<T>(out[1]), ptr<T>(out[2]), ptr<T>(r[0]),
                        r.size() > 1 ? ptr<T>(r[1]) : nullptr, *resp, static_cast<T>(param)};
    for_each_index(img, img.size(), f, stream);
  });
  return r;
}

}  // namespace

std::vector<Array> structure_tensor_2d(const Array& img, const std::vector<double>& sigma, ndimage::Mode mode,
                                       double cval, const Stream& stream) {
  return tensor(img, sigma, mode, cval, false, nullptr, 0, stream);
}

namespace {

Array response(const Array& image, const filters::Sigma& sigma, Response kind, double param, const char* fn,
               const Stream& stream, Array* second = nullptr) {
  const Array img = prepare_float(image, fn, 2, 2, true, stream);
  auto r = tensor(img, sigma_per_axis(sigma, 2, fn), ndimage::Mode::constant, 0.0, false, &kind, param, stream);
  if (second) *second = std::move(r[1]);
  return std::move(r[0]);
}

/// numpy.gradient of contiguous `in` along `axis`.
Array gradient(const Array& in, int axis, const Stream& stream) {
  Array out = like(in, stream);
  std::int64_t stride = 1;
  for (int a = in.ndim() - 1; a > axis; --a) stride *= in.shape(a);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(in.dtype(), "feature.hessian_matrix", [&]<class T>() {
    for_each_index(in, in.size(), Gradient<T>{ptr<T>(in), ptr<T>(out), in.shape(axis), stride}, stream);
  });
  return out;
}

}  // namespace
}  // namespace detail

using detail::ptr;

std::vector<Array> structure_tensor(const Array& image, const StructureTensorOptions& opts, const Stream& stream) {
  const char* fn = "feature.structure_tensor";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect(!(opts.order == TensorOrder::xy && image.ndim() > 2), fn, "order",
                            "'xy' is only supported for 2-D images, got ndim ", image.ndim());
  if (opts.sigma.v.size() != 1)
    cuskimage::detail::expect(static_cast<int>(opts.sigma.v.size()) == image.ndim(), fn, "sigma",
                              "must have as many elements as image has axes");
  const Array img = detail::prepare_float(image, fn, 2, detail::kMaxTensorDims, true, stream);
  return detail::tensor(img, detail::sigma_per_axis(opts.sigma, img.ndim(), fn), opts.mode, opts.cval,
                        opts.order == TensorOrder::xy, nullptr, 0, stream);
}

Array structure_tensor_eigenvalues(const std::vector<Array>& A_elems, const Stream& stream) {
  return filters::detail::hessian_matrix_eigvals(A_elems, stream);
}

Array hessian_matrix_eigvals(const std::vector<Array>& H_elems, const Stream& stream) {
  return filters::detail::hessian_matrix_eigvals(H_elems, stream);
}

std::vector<Array> hessian_matrix(const Array& image, const HessianMatrixOptions& opts, const Stream& stream) {
  const char* fn = "feature.hessian_matrix";
  cuskimage::detail::expect_valid(image, fn, "image");
  const int n = image.ndim();
  cuskimage::detail::expect(n >= 1 && n <= filters::detail::kMaxHessianDims, fn, "image", "must have 1 to ",
                            filters::detail::kMaxHessianDims, " dimensions, got ", n);
  cuskimage::detail::expect(!(opts.order == TensorOrder::xy && n > 2), fn, "order",
                            "'xy' is only supported for 2D images, got ndim ", n);
  const std::vector<double> sigma = detail::sigma_per_axis(opts.sigma, n, fn);
  if (opts.use_gaussian_derivatives.value_or(false)) {
    for (double s : sigma) cuskimage::detail::expect(s > 0, fn, "sigma", "must be positive with Gaussian derivatives");
    return filters::detail::hessian_matrix(
        image, {.sigma = sigma, .mode = opts.mode, .cval = opts.cval, .order_xy = opts.order == TensorOrder::xy},
        stream, fn);
  }
  for (int a = 0; a < n; ++a)
    cuskimage::detail::expect(image.shape(a) >= 2, fn, "image",
                              "every axis needs at least 2 pixels for numpy.gradient, axis ", a, " has ",
                              image.shape(a));
  Array img = util::img_as_float(image, {}, stream);
  const Array smooth =
      ndimage::gaussian_filter(img, sigma, {.mode = opts.mode, .cval = opts.cval, .truncate = 4.0}, stream)
          .contiguous(stream);
  std::vector<int> axes(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) axes[static_cast<std::size_t>(a)] = opts.order == TensorOrder::xy ? n - 1 - a : a;
  std::vector<Array> out;
  for (int i = 0; i < n; ++i) {
    const Array g = detail::gradient(smooth, axes[static_cast<std::size_t>(i)], stream);
    for (int j = i; j < n; ++j) out.push_back(detail::gradient(g, axes[static_cast<std::size_t>(j)], stream));
  }
  return out;
}

Array hessian_matrix_det(const Array& image, const HessianMatrixDetOptions& opts, const Stream& stream) {
  const char* fn = "feature.hessian_matrix_det";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect(std::isfinite(opts.sigma), fn, "sigma", "must be finite, got ", opts.sigma);
  if (image.ndim() == 2 && opts.approximate) {
    const std::int64_t size = static_cast<std::int64_t>(3 * opts.sigma);  // Python's int(): toward zero
    cuskimage::detail::expect(size > 0, fn, "sigma", "must be at least 1/3 for the approximation, got ", opts.sigma);
    const Array img = util::img_as_float(image, {}, stream);
    const Array ii = transform::integral_image(img, {.dtype = DType::float64}, stream).contiguous(stream);
    Array out = Array::empty(ii.shape(), DType::float64, ii.device(), stream);
    const auto floordiv = [](std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
    detail::HessianDetAppx f{ptr<double>(ii), ptr<double>(out), ii.shape(0), ii.shape(1),
                             floordiv(size - 1, 2), size / 3, size, 1.0 / static_cast<double>(size) / static_cast<double>(size)};
    detail::for_each_index(ii, ii.size(), f, stream);
    return out;
  }
  const auto h = hessian_matrix(image, {.sigma = opts.sigma, .use_gaussian_derivatives = false}, stream);
  Array out = detail::like(h[0], stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(out.dtype(), fn, [&]<class T>() {
    detail::SymDet<T> f{};
    f.out = ptr<T>(out);
    f.n = image.ndim();
    for (std::size_t i = 0; i < h.size(); ++i) f.h[i] = ptr<T>(h[i]);
    detail::for_each_index(out, out.size(), f, stream);
  });
  return out;
}

Array shape_index(const Array& image, const ShapeIndexOptions& opts, const Stream& stream) {
  const char* fn = "feature.shape_index";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect(image.ndim() == 2, fn, "image", "must be 2-D (two eigenvalues), got ", image.ndim(), "-D");
  const auto h = hessian_matrix(
      image, {.sigma = opts.sigma, .mode = opts.mode, .cval = opts.cval, .use_gaussian_derivatives = false}, stream);
  Array out = detail::like(h[0], stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(out.dtype(), fn, [&]<class T>() {
    detail::for_each_index(out, out.size(), detail::ShapeIndex<T>{ptr<T>(h[0]), ptr<T>(h[1]), ptr<T>(h[2]), ptr<T>(out)},
                           stream);
  });
  return out;
}

Array corner_harris(const Array& image, const CornerHarrisOptions& opts, const Stream& stream) {
  const bool k = opts.method == HarrisMethod::k;
  return detail::response(image, opts.sigma, k ? detail::Response::harris_k : detail::Response::harris_eps,
                          k ? opts.k : opts.eps, "feature.corner_harris", stream);
}

Array corner_shi_tomasi(const Array& image, const CornerShiTomasiOptions& opts, const Stream& stream) {
  return detail::response(image, opts.sigma, detail::Response::shi_tomasi, 0, "feature.corner_shi_tomasi", stream);
}

CornerFoerstnerResult corner_foerstner(const Array& image, const CornerFoerstnerOptions& opts, const Stream& stream) {
  CornerFoerstnerResult r;
  r.w = detail::response(image, opts.sigma, detail::Response::foerstner, 0, "feature.corner_foerstner", stream, &r.q);
  return r;
}

Array corner_kitchen_rosenfeld(const Array& image, const CornerKitchenRosenfeldOptions& opts, const Stream& stream) {
  const char* fn = "feature.corner_kitchen_rosenfeld";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect(image.ndim() == 2, fn, "image", "must be 2-D, got ", image.ndim(), "-D");
  const Array img = detail::prepare_float(image, fn, 2, 2, false, stream);
  const Array imy = detail::ndi_sobel(img, 0, opts.mode, opts.cval, stream);
  const Array imx = detail::ndi_sobel(img, 1, opts.mode, opts.cval, stream);
  const Array imxy = detail::ndi_sobel(imx, 0, opts.mode, opts.cval, stream);
  const Array imxx = detail::ndi_sobel(imx, 1, opts.mode, opts.cval, stream);
  const Array imyy = detail::ndi_sobel(imy, 0, opts.mode, opts.cval, stream);
  Array out = detail::like(img, stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), fn, [&]<class T>() {
    detail::KitchenRosenfeld<T> f{ptr<T>(imx), ptr<T>(imy), ptr<T>(imxx), ptr<T>(imxy), ptr<T>(imyy), ptr<T>(out)};
    detail::for_each_index(out, out.size(), f, stream);
  });
  return out;
}

}  // namespace cuskimage::feature
