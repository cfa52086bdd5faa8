// Public histogram thresholds of skimage.filters: validation, the hist= path (host) and the backend
// choice by the image's device. Status codes from the shared selection become scikit-image's errors.
#include <cmath>
#include <limits>
#include <string>

#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/filters/histogram_backend.hpp"
#include "src/util/common.hpp"

namespace cuskimage::filters {
namespace {

using cuskimage::detail::expect;
using detail::Method;
using detail::SelectParams;

std::string fn_name(Method m) {
  switch (m) {
    case Method::otsu: return "filters.threshold_otsu";
    case Method::yen: return "filters.threshold_yen";
    case Method::isodata: return "filters.threshold_isodata";
    case Method::minimum: return "filters.threshold_minimum";
    case Method::triangle: return "filters.threshold_triangle";
    case Method::multiotsu: return "filters.threshold_multiotsu";
    case Method::li: return "filters.threshold_li";
  }
  return "filters.threshold";
}

/// Turns a non-zero status into scikit-image's error (as InvalidArgument) and returns the values.
std::vector<double> finish(const std::vector<double>& res, const SelectParams& p) {
  const auto* h = reinterpret_cast<const detail::SelectResult*>(res.data());
  const std::string fn = fn_name(p.method);
  switch (static_cast<int>(h->status)) {
    case detail::kOk: break;
    case detail::kEmpty: cuskimage::detail::fail(fn, "argument 'image' must not be empty");
    case detail::kNonFinite:
      cuskimage::detail::fail(fn, "argument 'image' must hold finite values only (the histogram range is not finite)");
    case detail::kTooFewValues:
      cuskimage::detail::fail(fn, "after discretization into bins, the input image has only ",
                              static_cast<long long>(h->nvalues_seen), " different values; it cannot be thresholded in ",
                              p.classes, " classes (try increasing 'nbins')");
    case detail::kNoThreshold: cuskimage::detail::fail(fn, "no threshold satisfies the isodata criterion");
    case detail::kNoTwoMaxima: cuskimage::detail::fail(fn, "unable to find two maxima in histogram");
    case detail::kMaxIter: cuskimage::detail::fail(fn, "maximum iteration reached for histogram smoothing");
    case detail::kBadGuess:
      cuskimage::detail::fail(fn, "argument 'initial_guess' must lie within the range of the image, got ", p.guess);
    case detail::kZeroWeights: cuskimage::detail::fail(fn, "a class became empty while iterating (weights sum to zero)");
    default: cuskimage::detail::fail(fn, "internal error: status ", h->status);
  }
  const auto count = static_cast<std::size_t>(h->count);
  return std::vector<double>(res.begin() + detail::kResultHeader, res.begin() + detail::kResultHeader + count);
}

/// The hist= path: counts trimmed like _validate_image_histogram, then the shared selection.
std::vector<double> from_hist(const Histogram& hist, const SelectParams& p) {
  const std::string fn = fn_name(p.method);
  cuskimage::detail::expect_valid(hist.counts, fn, "hist.counts");
  cuskimage::detail::expect_ndim(hist.counts, fn, "hist.counts", 1, 1);
  expect(hist.counts.size() > 0, fn, "hist.counts", "must not be empty");
  const std::int64_t size = hist.counts.size();
  const std::vector<float> counts = hist.counts.to_vector<float>();
  std::int64_t start = 0, end = size;
  if (counts.front() == 0 || counts.back() == 0) {
    std::int64_t a = 0, b = 0;
    while (a < size && !(counts[a] > 0)) ++a;
    while (b < size && !(counts[size - 1 - b] > 0)) ++b;
    start = a == size ? 0 : a;
    end = b == size ? size : size - b;
  }
  const std::int64_t n = end - start;
  const detail::FloatCountsView c{counts.data(), start};
  std::vector<double> res(static_cast<std::size_t>(detail::kResultHeader + p.capacity), 0.0);
  std::vector<double> scratch(static_cast<std::size_t>(detail::select_scratch_doubles(n)));
  std::vector<std::int64_t> cur(static_cast<std::size_t>(std::max(p.classes, 1)));
  if (!hist.bin_centers) {
    detail::run_select(p, c, n, detail::IntCenters{start}, false, 0.0, scratch.data(), cur.data(), res.data());
    return finish(res, p);
  }
  const Array& bc = *hist.bin_centers;
  cuskimage::detail::expect_valid(bc, fn, "hist.bin_centers");
  expect(bc.ndim() == 1 && bc.size() == size, fn, "hist.bin_centers", "must be 1-D with ", size,
         " elements (as hist.counts), got shape ", shape_str(bc.shape()));
  if (bc.dtype() == DType::float32) {
    const auto v = bc.to_vector<float>();
    detail::run_select(p, c, n, detail::TableCenters<float>{v.data(), start}, false, 0.0, scratch.data(), cur.data(),
                       res.data());
  } else if (is_integer(bc.dtype())) {
    const auto v = bc.to_vector<std::int64_t>();
    const std::vector<long long> w(v.begin(), v.end());
    detail::run_select(p, c, n, detail::TableCenters<long long>{w.data(), start}, false, 0.0, scratch.data(),
                       cur.data(), res.data());
  } else {
    const auto v = bc.to_vector<double>();
    detail::run_select(p, c, n, detail::TableCenters<double>{v.data(), start}, false, 0.0, scratch.data(), cur.data(),
                       res.data());
  }
  return finish(res, p);
}

std::vector<double> threshold(const Array* image, const std::optional<Histogram>& hist, SelectParams p,
                              const Stream& stream) {
  const std::string fn = fn_name(p.method);
  expect(p.nbins >= 2, fn, "nbins", "must be at least 2, got ", p.nbins);
  if (p.method == Method::multiotsu) expect(p.classes >= 2, fn, "classes", "must be at least 2, got ", p.classes);
  if (p.method == Method::multiotsu) p.capacity = p.classes - 1;
  if (hist) {
    if (p.return_all) p.capacity = hist->counts.size();
    return from_hist(*hist, p);
  }
  cuskimage::detail::expect_valid(*image, fn, "image");
  expect(image->size() > 0, fn, "image", "must not be empty, got shape ", shape_str(image->shape()));
  if (p.return_all) p.capacity = is_floating(image->dtype()) ? p.nbins : 65536;
  std::vector<double> res;
  cuskimage::detail::on_backend(
      *image, stream, [&] { detail::cpu_histogram_threshold(*image, p, res); },
      [&](const Stream& s) { detail::cuda_histogram_threshold(*image, p, res, s); });
  return finish(res, p);
}

}  // namespace

double threshold_otsu(const Array& image, const ThresholdOtsuOptions& opts, const Stream& stream) {
  return threshold(&image, opts.hist, {.method = Method::otsu, .nbins = opts.nbins}, stream)[0];
}

std::vector<double> threshold_multiotsu(const Array& image, const ThresholdMultiotsuOptions& opts,
                                        const Stream& stream) {
  return threshold(&image, opts.hist, {.method = Method::multiotsu, .nbins = opts.nbins, .classes = opts.classes},
                   stream);
}

double threshold_isodata(const Array& image, const ThresholdIsodataOptions& opts, const Stream& stream) {
  return threshold(&image, opts.hist, {.method = Method::isodata, .nbins = opts.nbins}, stream)[0];
}

std::vector<double> threshold_isodata_all(const Array& image, const ThresholdIsodataOptions& opts,
                                          const Stream& stream) {
  return threshold(&image, opts.hist, {.method = Method::isodata, .nbins = opts.nbins, .return_all = true}, stream);
}

double threshold_yen(const Array& image, const ThresholdYenOptions& opts, const Stream& stream) {
  return threshold(&image, opts.hist, {.method = Method::yen, .nbins = opts.nbins}, stream)[0];
}

double threshold_minimum(const Array& image, const ThresholdMinimumOptions& opts, const Stream& stream) {
  return threshold(&image, opts.hist,
                   {.method = Method::minimum, .nbins = opts.nbins, .max_num_iter = opts.max_num_iter}, stream)[0];
}

double threshold_triangle(const Array& image, const ThresholdTriangleOptions& opts, const Stream& stream) {
  return threshold(&image, std::nullopt, {.method = Method::triangle, .nbins = opts.nbins}, stream)[0];
}

namespace {

/// Li's iteration on a float image: backend reductions, the loop in the image's precision T.
template <class T>
double li_float(const Array& image, const ThresholdLiOptions& opts, const Stream& stream) {
  const std::string fn = "filters.threshold_li";
  auto on = [&](auto cpu, auto cuda) { return cuskimage::detail::on_backend(image, stream, cpu, cuda); };
  const detail::LiStats st =
      on([&] { return detail::cpu_li_stats(image); }, [&](const Stream& s) { return detail::cuda_li_stats(image, s); });
  if (st.n_nn == 0) return std::nan("");
  if (st.lo_nn == st.hi_nn) return st.lo_nn;
  if (st.n_f == 0) return 0.0;
  const T m = static_cast<T>(st.lo_f);
  T tol;
  if (opts.tolerance && *opts.tolerance != 0.0) {
    tol = static_cast<T>(*opts.tolerance);
  } else {
    const double gap = on([&] { return detail::cpu_li_min_gap(image, st.lo_f); },
                          [&](const Stream& s) { return detail::cuda_li_min_gap(image, st.lo_f, s); });
    expect(std::isfinite(gap), fn, "image", "must hold at least two distinct finite values to derive the tolerance");
    tol = static_cast<T>(gap) / T(2);
  }
  // np.mean: the sum in T divided by the count (an intp) in float64, rounded to T.
  auto mean_of = [](double sum, long long n) {
    return static_cast<T>(static_cast<double>(static_cast<T>(sum)) / static_cast<double>(n));
  };
  auto sums = [&](T t) {
    return on([&] { return detail::cpu_li_sums(image, st.lo_f, t); },
              [&](const Stream& s) { return detail::cuda_li_sums(image, st.lo_f, t, s); });
  };
  T t_next;
  if (!opts.initial_guess) {
    const detail::LiSums a = sums(std::numeric_limits<T>::infinity());
    t_next = mean_of(a.sum_bg, a.n_bg);
  } else {
    const double t = *opts.initial_guess - static_cast<double>(m);
    const double top = static_cast<double>(static_cast<T>(static_cast<T>(st.hi_f) - m));
    expect(0.0 < t && t < top, fn, "initial_guess", "must lie within the range of the image (", st.lo_f, ", ",
           st.hi_f, "), got ", *opts.initial_guess);
    t_next = static_cast<T>(t);
  }
  T t_curr = T(-2) * tol;
  while (std::fabs(t_next - t_curr) > tol) {
    t_curr = t_next;
    const detail::LiSums a = sums(t_curr);
    const T mean_fore = mean_of(a.sum_fg, a.n_fg);
    const T mean_back = mean_of(a.sum_bg, a.n_bg);
    if (mean_back == T(0)) break;
    t_next = (mean_back - mean_fore) / (static_cast<T>(std::log(static_cast<double>(mean_back))) -
                                        static_cast<T>(std::log(static_cast<double>(mean_fore))));
  }
  return static_cast<double>(static_cast<T>(t_next + m));
}

}  // namespace

double threshold_li(const Array& image, const ThresholdLiOptions& opts, const Stream& stream) {
  const std::string fn = "filters.threshold_li";
  cuskimage::detail::expect_valid(image, fn, "image");
  if (image.size() == 0) return std::nan("");
  if (is_floating(image.dtype())) {
    return cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(
        image.dtype(), fn, [&]<class T>() { return li_float<T>(image, opts, stream); });
  }
  SelectParams p{.method = Method::li};
  p.tolerance = opts.tolerance.value_or(0.0);
  p.has_guess = opts.initial_guess.has_value();
  p.guess = opts.initial_guess.value_or(0.0);
  std::vector<double> res;
  cuskimage::detail::on_backend(
      image, stream, [&] { detail::cpu_histogram_threshold(image, p, res); },
      [&](const Stream& s) { detail::cuda_histogram_threshold(image, p, res, s); });
  return finish(res, p)[0];
}

double threshold_mean(const Array& image, const Stream& stream) {
  const std::string fn = "filters.threshold_mean";
  cuskimage::detail::expect_valid(image, fn, "image");
  if (image.size() == 0) return std::nan("");
  return cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t,
                                                              std::uint32_t, std::int32_t, std::uint64_t, std::int64_t,
                                                              float, double>>(
      image.dtype(), fn, [&]<class T>() -> double {
        const double sum = util::detail::sums<T>(image, 1, stream)[0];
        const auto n = static_cast<double>(image.size());
        if constexpr (std::is_same_v<T, float>)
          return static_cast<double>(static_cast<float>(sum / n));  // NumPy divides by the count in float64
        else
          return sum / n;
      });
}

}  // namespace cuskimage::filters
