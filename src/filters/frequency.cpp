// skimage.filters frequency-domain filters: butterworth (N-d, rfftn/irfftn) and the LPIFilter2D
// family (filter_forward, filter_inverse, wiener; 2-D fftn/ifftn on a (2M-1, 2N-1) zero-padded
// grid). Validation and the plans (index maps, gains) are host code here; the FFTs run in FFTW3 for
// CPU arrays (below) and in cuFFT for CUDA arrays (kernels/filters/frequency.cu), both through the
// shared FFT layer (src/core/fft.hpp).
#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>

#include "cuskimage/filters.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/fft.hpp"
#include "src/core/validate.hpp"
#include "src/filters/frequency.hpp"

namespace cuskimage::filters {

namespace detail {
namespace {

using cuskimage::detail::dispatch;
using cuskimage::detail::Types;
using InTypes = Types<std::uint8_t, std::uint16_t, std::int16_t, std::int32_t, float, double>;

#if CUSK_HAVE_FFTW
using cuskimage::detail::fft::Fftw;

/// Plans, executes and destroys one FFTW plan (the shared layer's planner lock).
template <class T, class Make>
void run_plan(const char* what, Make&& make) {
  cuskimage::detail::fft::fftw_run<T>("filters", what, std::forward<Make>(make));
}

int as_int(std::int64_t v) { return cuskimage::detail::fft::as_int(v, "filters"); }

template <class T>
void cpu_butterworth_t(const Array& image, Array& out, const ButterworthPlan& p) {
  const int rank = p.gain.rank;
  const std::int64_t half = p.padded_size / p.gain.n[rank - 1] * p.gain.half_last();
  Array work = Array::empty({p.channels * p.padded_size}, dtype_v<T>);
  Array spec = Array::empty({p.channels * half, 2}, dtype_v<T>);
  T* w = work.data<T>();
  T* sp = spec.data<T>();
  const std::int64_t total = p.channels * p.padded_size;
  dispatch<InTypes>(image.dtype(), "filters.butterworth", [&]<class In>() {
    const In* src = static_cast<const In*>(image.data());
#pragma omp parallel for schedule(static) if (total > 32768)
    for (std::int64_t i = 0; i < total; ++i) w[i] = static_cast<T>(src[p.gather.source(i)]);
  });
  int n[kMaxFftAxes];
  for (int d = 0; d < rank; ++d) n[d] = as_int(p.gain.n[d]);
  const int howmany = as_int(p.channels), idist = as_int(p.padded_size), odist = as_int(half);
  run_plan<T>("rfftn", [&] { return Fftw<T>::r2c(rank, n, howmany, w, idist, sp, odist); });
  auto* c = reinterpret_cast<Cplx<T>*>(sp);
#pragma omp parallel for schedule(static) if (p.channels * half > 32768)
  for (std::int64_t i = 0; i < p.channels * half; ++i) c[i] = cscale(c[i], p.gain.at<T>(i % half));
  run_plan<T>("irfftn", [&] { return Fftw<T>::c2r(rank, n, howmany, sp, odist, w, idist); });
  const T scale = static_cast<T>(1.0 / static_cast<double>(p.padded_size));
  T* o = out.data<T>();
  const std::int64_t m = out.size();
#pragma omp parallel for schedule(static) if (m > 32768)
  for (std::int64_t i = 0; i < m; ++i) o[i] = w[p.scatter.offset(i)] * scale;
}

template <class T>
void cpu_lpi_spectrum_t(const Array& src, Array& spec) {
  const std::int64_t o0 = spec.shape(0), o1 = spec.shape(1), m = src.shape(0), n = src.shape(1);
  const std::int64_t s0 = src.strides()[0], s1 = src.strides()[1];
  T* sp = spec.data<T>();
  dispatch<InTypes>(src.dtype(), "filters.LPIFilter2D", [&]<class In>() {
    const In* s = static_cast<const In*>(src.data());
#pragma omp parallel for schedule(static) if (o0 * o1 > 32768)
    for (std::int64_t i = 0; i < o0; ++i)
      for (std::int64_t j = 0; j < o1; ++j) {
        sp[2 * (i * o1 + j)] = i < m && j < n ? static_cast<T>(s[i * s0 + j * s1]) : T(0);
        sp[2 * (i * o1 + j) + 1] = T(0);
      }
  });
  run_plan<T>("fftn", [&] { return Fftw<T>::c2c(as_int(o0), as_int(o1), sp, FFTW_FORWARD); });
}

template <class T>
void cpu_lpi_finish_t(Array& G, const Array& F, const LpiSpectral& spc, const LpiCrop& crop, Array& out) {
  const std::int64_t total = crop.o0 * crop.o1;
  auto* g = reinterpret_cast<Cplx<T>*>(G.data<T>());
  const auto* f = reinterpret_cast<const Cplx<T>*>(F.data<T>());
#pragma omp parallel for schedule(static) if (total > 32768)
  for (std::int64_t i = 0; i < total; ++i) g[i] = spc.apply(g[i], f[i], i);
  run_plan<T>("ifftn", [&] { return Fftw<T>::c2c(as_int(crop.o0), as_int(crop.o1), G.data<T>(), FFTW_BACKWARD); });
  const T scale = static_cast<T>(1.0 / static_cast<double>(total));
  T* o = out.data<T>();
  const std::int64_t m = crop.rows * crop.cols;
#pragma omp parallel for schedule(static) if (m > 32768)
  for (std::int64_t i = 0; i < m; ++i) {
    const Cplx<T> z = g[crop.source(i)];
    o[i] = hd_hypot(z.re * scale, z.im * scale);
  }
}
#endif  // CUSK_HAVE_FFTW

#if !CUSK_HAVE_FFTW
[[noreturn]] void no_fftw() {
  throw NotSupported(
      "filters: the frequency-domain filters need FFTW3 on CPU arrays; this build has none (install libfftw3-dev "
      "and reconfigure)");
}
#endif

}  // namespace

void cpu_butterworth(const Array& image, Array& out, const ButterworthPlan& plan) {
#if CUSK_HAVE_FFTW
  if (out.dtype() == DType::float32) cpu_butterworth_t<float>(image, out, plan);
  else cpu_butterworth_t<double>(image, out, plan);
#else
  (void)image, (void)out, (void)plan;
  no_fftw();
#endif
}

void cpu_lpi_spectrum(const Array& src, Array& spec) {
#if CUSK_HAVE_FFTW
  if (spec.dtype() == DType::float32) cpu_lpi_spectrum_t<float>(src, spec);
  else cpu_lpi_spectrum_t<double>(src, spec);
#else
  (void)src, (void)spec;
  no_fftw();
#endif
}

void cpu_lpi_finish(Array& G, const Array& F, const LpiSpectral& sp, const LpiCrop& crop, Array& out) {
#if CUSK_HAVE_FFTW
  if (out.dtype() == DType::float32) cpu_lpi_finish_t<float>(G, F, sp, crop, out);
  else cpu_lpi_finish_t<double>(G, F, sp, crop, out);
#else
  (void)G, (void)F, (void)sp, (void)crop, (void)out;
  no_fftw();
#endif
}

}  // namespace detail

// ==== public functions ==============================================================================
namespace {

using cuskimage::detail::expect;
using detail::kMaxFftAxes;

bool fft_input_dtype(DType d) {
  return d == DType::uint8 || d == DType::uint16 || d == DType::int16 || d == DType::int32 || d == DType::float32 ||
         d == DType::float64;
}

/// The image as one of the backends' input dtypes (others, bool included, become float64 as
/// scikit-image's float conversion does).
Array fft_input(const Array& a, const Stream& stream) {
  return fft_input_dtype(a.dtype()) ? a.share() : a.astype(DType::float64, stream);
}

DType float_type(DType d) { return d == DType::float32 ? DType::float32 : DType::float64; }

void check_data(const Array& data, std::string_view fn) {
  cuskimage::detail::expect_valid(data, fn, "data");
  expect(data.size() > 0, fn, "data", "cannot be an empty array, got shape ", shape_str(data.shape()));
  expect(data.ndim() == 2, fn, "data", "must be a 2-dimensional array, got shape ", shape_str(data.shape()));
}

}  // namespace

Array butterworth(const Array& image, const ButterworthOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.butterworth";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(opts.npad >= 0, fn, "npad", "must be >= 0, got ", opts.npad);
  expect(opts.cutoff_frequency_ratio >= 0 && opts.cutoff_frequency_ratio <= 0.5, fn, "cutoff_frequency_ratio",
         "should be in the range [0, 0.5], got ", opts.cutoff_frequency_ratio);
  expect(image.ndim() >= 1, fn, "image", "must have at least 1 dimension, got 0-D");
  int cax = -1;
  if (opts.channel_axis) cax = cuskimage::detail::normalize_axis(*opts.channel_axis, image.ndim(), fn, "channel_axis");
  const int rank = image.ndim() - (cax >= 0 ? 1 : 0);
  expect(rank >= 1, fn, "image", "must have a spatial axis besides channel_axis, got shape ", shape_str(image.shape()));
  expect(rank <= kMaxFftAxes, fn, "image", "must have at most ", kMaxFftAxes, " spatial axes, got ", rank);
  expect(image.size() > 0, fn, "image", "must not be empty, got shape ", shape_str(image.shape()));

  detail::ButterworthPlan plan;
  plan.gain.rank = plan.gather.rank = rank;
  plan.gain.factor = opts.cutoff_frequency_ratio;
  plan.gain.order = opts.order;
  plan.gain.high_pass = opts.high_pass;
  plan.gain.squared = opts.squared_butterworth;
  plan.gather.npad = opts.npad;
  plan.channels = cax >= 0 ? image.shape(cax) : 1;
  plan.gather.cstride = cax >= 0 ? image.strides()[cax] : 0;
  std::int64_t pstride[kMaxFftAxes];
  for (int ax = 0, k = 0; ax < image.ndim(); ++ax) {
    if (ax == cax) continue;
    plan.gather.ishape[k] = image.shape(ax);
    plan.gather.istride[k] = image.strides()[ax];
    plan.gather.pshape[k] = plan.gain.n[k] = image.shape(ax) + 2 * opts.npad;
    ++k;
  }
  plan.padded_size = 1;
  for (int k = rank - 1; k >= 0; --k) {
    pstride[k] = plan.padded_size;
    plan.padded_size *= plan.gain.n[k];
  }
  plan.scatter.ndim = image.ndim();
  for (int ax = 0, k = 0; ax < image.ndim(); ++ax) {
    plan.scatter.shape[ax] = image.shape(ax);
    if (ax == cax) {
      plan.scatter.wstride[ax] = plan.padded_size;
    } else {
      plan.scatter.wstride[ax] = pstride[k];
      plan.scatter.base += opts.npad * pstride[k];
      ++k;
    }
  }

  Array src = fft_input(image, stream);
  Array out = Array::empty(image.shape(), float_type(image.dtype()), image.device(), stream);
  cuskimage::detail::on_backend(
      src, stream, [&] { detail::cpu_butterworth(src, out, plan); },
      [&](const Stream& s) { detail::cuda_butterworth(src, out, plan, s); });
  return out;
}

// ---- LPIFilter2D ------------------------------------------------------------------------------------

struct LPIFilter2D::State {
  ImpulseResponse impulse_response;
  std::mutex mutex;
  // The cached spectrum of the padded impulse response, for one (shape, precision, device).
  Array F;
  Shape shape;
  DType dtype = DType::float64;
  Device device = Device::cpu();
  cudaEvent_t ready = nullptr;  // recorded after F was made on a CUDA stream

  ~State() {
    if (ready) cudaEventDestroy(ready);
  }
};

LPIFilter2D::LPIFilter2D(ImpulseResponse impulse_response) : state_(std::make_shared<State>()) {
  expect(static_cast<bool>(impulse_response), "filters.LPIFilter2D", "impulse_response",
         "must be a callable (Impulse response must be a callable), got an empty function");
  state_->impulse_response = std::move(impulse_response);
}

const ImpulseResponse& LPIFilter2D::impulse_response() const { return state_->impulse_response; }

namespace {

struct Prepared {
  Array F;  // [O0, O1, 2] spectrum of the impulse response (shared with the cache)
  Array G;  // [O0, O1, 2] spectrum of the data (fresh)
};

template <class T>
Array impulse_values(const ImpulseResponse& h, std::int64_t m, std::int64_t n) {
  // scikit-image: odd extents (even ones grow by one and shift the grid by one), coordinates
  // offset + i - (d - 1) / 2 in the data's float precision.
  const std::int64_t off0 = m % 2 == 0 ? 1 : 0, off1 = n % 2 == 0 ? 1 : 0;
  const std::int64_t d0 = m + off0, d1 = n + off1;
  Array a = Array::empty({d0, d1}, dtype_v<T>);
  T* p = a.data<T>();
  for (std::int64_t i = 0; i < d0; ++i) {
    const T r = static_cast<T>(static_cast<double>(off0 + i) - static_cast<double>(d0 - 1) / 2.0);
    for (std::int64_t j = 0; j < d1; ++j) {
      const T c = static_cast<T>(static_cast<double>(off1 + j) - static_cast<double>(d1 - 1) / 2.0);
      p[i * d1 + j] = static_cast<T>(h(static_cast<double>(r), static_cast<double>(c)));
    }
  }
  return a;
}

void spectrum(const Array& src, Array& spec, const Stream& stream) {
  cuskimage::detail::on_backend(
      spec, stream, [&] { detail::cpu_lpi_spectrum(src, spec); },
      [&](const Stream& s) { detail::cuda_lpi_spectrum(src, spec, s); });
}

Prepared prepare(const LPIFilter2D& filter, const Array& data, const Stream& stream) {
  const std::int64_t m = data.shape(0), n = data.shape(1);
  const Shape oshape = {2 * m - 1, 2 * n - 1, 2};
  const DType dt = float_type(data.dtype());
  const Device dev = data.device();
  Prepared p;
  {
    LPIFilter2D::State& st = *filter.state();
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.F.valid() || st.shape != oshape || st.dtype != dt || !(st.device == dev)) {
      Array h = dt == DType::float32 ? impulse_values<float>(st.impulse_response, m, n)
                                     : impulse_values<double>(st.impulse_response, m, n);
      Array F = Array::empty(oshape, dt, dev, stream);
      Array hd = h.to(dev, stream);
      spectrum(hd, F, stream);
      st.F = std::move(F);
      st.shape = oshape;
      st.dtype = dt;
      st.device = dev;
      if (dev.is_cuda()) {
        cuskimage::detail::DeviceGuard guard(dev.index());
        if (st.ready) CUSK_CUDA_CHECK(cudaEventDestroy(st.ready));
        st.ready = nullptr;
        CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&st.ready, cudaEventDisableTiming));
        CUSK_CUDA_CHECK(cudaEventRecord(st.ready, stream.handle()));
      }
    } else if (dev.is_cuda() && st.ready) {
      cuskimage::detail::DeviceGuard guard(dev.index());
      CUSK_CUDA_CHECK(cudaStreamWaitEvent(stream.handle(), st.ready, 0));
    }
    p.F = st.F.share();
  }
  Array src = fft_input(data, stream);
  p.G = Array::empty(oshape, dt, dev, stream);
  spectrum(src, p.G, stream);
  return p;
}

Array finish(Prepared& p, const Array& data, const detail::LpiSpectral& sp, bool shift, const Stream& stream) {
  const std::int64_t m = data.shape(0), n = data.shape(1);
  detail::LpiCrop crop{.rows = m, .cols = n, .o0 = 2 * m - 1, .o1 = 2 * n - 1};
  crop.s0 = (m - 1) / 2 + (shift ? m - 1 : 0);
  crop.s1 = (n - 1) / 2 + (shift ? n - 1 : 0);
  Array out = Array::empty({m, n}, p.G.dtype(), data.device(), stream);
  cuskimage::detail::on_backend(
      out, stream, [&] { detail::cpu_lpi_finish(p.G, p.F, sp, crop, out); },
      [&](const Stream& s) { detail::cuda_lpi_finish(p.G, p.F, sp, crop, out, s); });
  return out;
}

LPIFilter2D pick_filter(const std::optional<LPIFilter2D>& predefined, const ImpulseResponse& h, std::string_view fn) {
  if (predefined) return *predefined;
  expect(static_cast<bool>(h), fn, "impulse_response",
         "must be a callable (Impulse response must be a callable) unless predefined_filter is given");
  return LPIFilter2D(h);
}

}  // namespace

Array LPIFilter2D::operator()(const Array& data, const Stream& stream) const {
  check_data(data, "filters.LPIFilter2D");
  Prepared p = prepare(*this, data, stream);
  return finish(p, data, {.op = detail::LpiOp::forward}, false, stream);
}

Array filter_forward(const Array& data, const FilterForwardOptions& opts, const Stream& stream) {
  check_data(data, "filters.filter_forward");
  return pick_filter(opts.predefined_filter, opts.impulse_response, "filters.filter_forward")(data, stream);
}

Array filter_inverse(const Array& data, const FilterInverseOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.filter_inverse";
  check_data(data, fn);
  expect(!std::isnan(opts.max_gain), fn, "max_gain", "must be a number, got NaN");
  const LPIFilter2D filt = pick_filter(opts.predefined_filter, opts.impulse_response, fn);
  Prepared p = prepare(filt, data, stream);
  return finish(p, data, {.op = detail::LpiOp::inverse, .max_gain = opts.max_gain}, true, stream);
}

Array wiener(const Array& data, const WienerOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.wiener";
  check_data(data, fn);
  const std::int64_t o0 = 2 * data.shape(0) - 1, o1 = 2 * data.shape(1) - 1;
  detail::LpiSpectral sp{.op = detail::LpiOp::wiener, .cols = o1};
  Array K;
  if (const auto* k = std::get_if<double>(&opts.K)) {
    sp.K = *k;
  } else {
    const Array& ka = std::get<Array>(opts.K);
    cuskimage::detail::expect_valid(ka, fn, "K");
    expect(ka.size() > 0, fn, "K", "cannot be an empty array");
    expect(ka.ndim() == 2, fn, "K", "must be a float or a 2-dimensional array, got shape ", shape_str(ka.shape()));
    expect((ka.shape(0) == 1 || ka.shape(0) == o0) && (ka.shape(1) == 1 || ka.shape(1) == o1), fn, "K",
           "must broadcast to the padded spectrum's shape [", o0, ", ", o1, "], got shape ", shape_str(ka.shape()));
    K = ka.to(data.device(), stream).astype(DType::float64, stream);
    sp.K_array = static_cast<const double*>(K.data());
    sp.ks0 = ka.shape(0) == 1 ? 0 : K.shape(1);
    sp.ks1 = ka.shape(1) == 1 ? 0 : 1;
  }
  const LPIFilter2D filt = pick_filter(opts.predefined_filter, opts.impulse_response, fn);
  Prepared p = prepare(filt, data, stream);
  return finish(p, data, sp, true, stream);
}

}  // namespace cuskimage::filters
