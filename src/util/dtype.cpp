// skimage.util dtype functions: img_as_*, convert, dtype_limits. Host logic (validation, the
// integer conversion plan, range checks) and the CPU backend.
#include <cmath>
#include <limits>
#include <sstream>

#include "cuskimage/util.hpp"
#include "src/core/elementwise.hpp"
#include "src/util/common.hpp"

namespace cuskimage::util {
namespace detail {

Range value_range(const Array& a, const Stream& stream, std::string_view fn) {
  return dispatch<cuskimage::detail::AllTypes>(a.dtype(), fn, [&]<class T>() {
    const MinMax<T> m = minmax<T>(a, 1, stream)[0];
    Range r;
    r.any = m.any;
    if (!m.any) return r;
    if (m.nan) {
      r.lo = r.hi = std::numeric_limits<double>::quiet_NaN();
    } else {
      r.lo = static_cast<double>(m.lo);
      r.hi = static_cast<double>(m.hi);
    }
    return r;
  });
}

void cpu_convert(const Array& src, Array& dst, const ConvertPlan& plan) {
  using cuskimage::detail::AllTypes;
  dispatch<AllTypes>(src.dtype(), "util.convert", [&]<class In>() {
    dispatch<AllTypes>(dst.dtype(), "util.convert", [&]<class Out>() {
      cuskimage::detail::cpu_map<In, Out>(src, dst, ImgConvert<In, Out>{plan});
    });
  });
}

namespace {

int bits(DType d) { return 8 * static_cast<int>(itemsize(d)); }
std::uint64_t pow2m1(int b) { return b >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << b) - 1; }

/// max(image) < 2^m (true for an empty image).
bool max_below_pow2(const Array& image, int m, const Stream& stream) {
  return dispatch<cuskimage::detail::IntegerTypes>(image.dtype(), "util.convert", [&]<class T>() -> bool {
    const MinMax<T> r = minmax<T>(image, 1, stream)[0];
    if (!r.any) return true;
    if constexpr (std::is_signed_v<T>) {
      if (r.hi < 0) return true;
    }
    return static_cast<std::uint64_t>(r.hi) < (std::uint64_t(1) << m);
  });
}

[[noreturn]] void unsupported_pair(std::string_view fn, DType in, DType out) {
  fail(fn, "argument 'dtype': cannot convert ", dtype_name(in), " to ", dtype_name(out),
       " (scikit-image cannot either)");
}

/// scikit-image's integer -> integer rules (skimage.util.dtype._convert and _scale), per case:
///  unsigned -> unsigned: _scale(n_in, n_out)          unsigned -> signed: _scale(n_in, n_out - 1)
///  signed -> unsigned:   _scale(n_in - 1, n_out), then max(., 0)
///  signed -> signed:     narrower: _scale(n_in - 1, n_out - 1); wider: shift to unsigned, scale, shift back
/// _scale(n, m): n > m: if max < 2^m a plain cast, else floor(x / 2^(n - m)); m a multiple of n:
/// x * (2^m - 1) / (2^n - 1); otherwise via o = (m / n + 1) * n bits: floor(x * (2^o - 1) / (2^n - 1) / 2^(o - m)).
ConvertPlan int_plan(const Array& image, DType out, const Stream& stream, std::string_view fn) {
  const DType in = image.dtype();
  const bool si = is_signed(in), so = is_signed(out);
  const int nin = bits(in), nout = bits(out);
  ConvertPlan p;
  auto downscale = [&](int n, int m) {
    if (max_below_pow2(image, m, stream)) {
      p.op = IntOp::cast;
    } else {
      p.op = IntOp::shift_down;
      p.shift = n - m;
    }
  };
  // Upscale through o bits; scikit-image's intermediate of o bits must exist (o <= 64 unsigned,
  // o <= 63 signed).
  auto upscale = [&](int n, int m, bool signed_mid) {
    const int o = m % n == 0 ? m : (m / n + 1) * n;
    if (o > (signed_mid ? 63 : 64)) unsupported_pair(fn, in, out);
    p.op = IntOp::mul_shift;
    p.k = pow2m1(o) / pow2m1(n);
    p.shift = o - m;
  };
  if (!si && !so) {
    if (nin > nout)
      downscale(nin, nout);
    else
      upscale(nin, nout, false);
  } else if (!si && so) {
    if (nin > nout - 1)
      downscale(nin, nout - 1);
    else
      upscale(nin, nout - 1, false);
  } else if (si && !so) {
    p.clamp_negative = true;
    const int n = nin - 1, m = nout;
    if (n > m) {
      downscale(n, m);
      // The plain cast goes through scikit-image's signed intermediate of more than m bits.
      if (p.op == IntOp::cast) p.mid_bits = m < 16 ? 16 : (m < 32 ? 32 : 64);
    } else {
      upscale(n, m, true);
    }
  } else {
    if (nin > nout) {
      downscale(nin - 1, nout - 1);
    } else {
      if (nout >= 64) unsupported_pair(fn, in, out);
      p.op = IntOp::shift_scale;
      p.k = pow2m1(nout) / pow2m1(nin);
      p.in_min = -(std::int64_t(1) << (nin - 1));
      p.out_min = -(std::int64_t(1) << (nout - 1));
    }
  }
  return p;
}

/// Validation and plan of a conversion image -> out (different dtypes). May synchronize.
ConvertPlan prepare(const Array& image, DType out, bool uniform, const Stream& stream, std::string_view fn) {
  const DType in = image.dtype();
  ConvertPlan p;
  if (is_integer(in) && is_integer(out)) p = int_plan(image, out, stream, fn);
  p.uniform = uniform;
  if (is_floating(in) && is_integer(out)) {
    const Range r = value_range(image, stream, fn);
    // NumPy's min/max are NaN when a NaN is present, and NaN < -1 is false: no error then.
    if (r.any && (r.lo < -1.0 || r.hi > 1.0)) {
      std::ostringstream os;
      os << "must have values in [-1, 1] (images of type float), got [" << r.lo << ", " << r.hi << "]";
      expect(false, fn, "image", os.str());
    }
  }
  return p;
}

void run_convert(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream) {
  if (src.size() == 0) return;
  on_backend(
      src, stream, [&] { cpu_convert(src, dst, plan); },
      [&](const Stream& s) {
        const DType out = dst.dtype();
        if (is_floating(out))
          cuda_convert_to_float(src, dst, plan, s);
        else if (out == DType::bool_)
          cuda_convert_to_bool(src, dst, plan, s);
        else if (itemsize(out) <= 2)
          cuda_convert_to_small_int(src, dst, plan, s);
        else
          cuda_convert_to_large_int(src, dst, plan, s);
      });
}

Array convert_to(const Array& image, DType out, bool force_copy, bool uniform, bool keep_float, const Stream& stream,
                 std::string_view fn) {
  expect_valid(image, fn, "image");
  if (image.dtype() == out || (keep_float && is_floating(image.dtype())))
    return force_copy ? image.copy(stream) : image.share();
  const ConvertPlan plan = prepare(image, out, uniform, stream, fn);
  Array dst = Array::empty(image.shape(), out, image.device(), stream);
  run_convert(image, dst, plan, stream);
  return dst;
}

}  // namespace
}  // namespace detail

DtypeLimits dtype_limits(DType dtype, bool clip_negative) {
  DtypeLimits r{};
  switch (dtype) {
    case DType::bool_: r = {0.0, 1.0}; break;
    case DType::float32:
    case DType::float64: r = {-1.0, 1.0}; break;
    default:
      detail::dispatch<cuskimage::detail::IntegerTypes>(dtype, "util.dtype_limits", [&]<class T>() {
        r = {static_cast<double>(std::numeric_limits<T>::lowest()), static_cast<double>(std::numeric_limits<T>::max())};
      });
  }
  if (clip_negative) r.imin = 0.0;
  return r;
}

DtypeLimits dtype_limits(const Array& image, bool clip_negative) {
  detail::expect_valid(image, "util.dtype_limits", "image");
  return dtype_limits(image.dtype(), clip_negative);
}

Array img_as_float(const Array& image, const ImgAsOptions& opts, const Stream& stream) {
  return detail::convert_to(image, DType::float64, opts.force_copy, false, true, stream, "util.img_as_float");
}
Array img_as_float32(const Array& image, const ImgAsOptions& opts, const Stream& stream) {
  return detail::convert_to(image, DType::float32, opts.force_copy, false, false, stream, "util.img_as_float32");
}
Array img_as_float64(const Array& image, const ImgAsOptions& opts, const Stream& stream) {
  return detail::convert_to(image, DType::float64, opts.force_copy, false, false, stream, "util.img_as_float64");
}
Array img_as_ubyte(const Array& image, const ImgAsOptions& opts, const Stream& stream) {
  return detail::convert_to(image, DType::uint8, opts.force_copy, false, false, stream, "util.img_as_ubyte");
}
Array img_as_uint(const Array& image, const ImgAsOptions& opts, const Stream& stream) {
  return detail::convert_to(image, DType::uint16, opts.force_copy, false, false, stream, "util.img_as_uint");
}
Array img_as_int(const Array& image, const ImgAsOptions& opts, const Stream& stream) {
  return detail::convert_to(image, DType::int16, opts.force_copy, false, false, stream, "util.img_as_int");
}
Array img_as_bool(const Array& image, const ImgAsOptions& opts, const Stream& stream) {
  return detail::convert_to(image, DType::bool_, opts.force_copy, false, false, stream, "util.img_as_bool");
}

Array convert(const Array& image, DType dtype, const ConvertOptions& opts, const Stream& stream) {
  return detail::convert_to(image, dtype, opts.force_copy, opts.uniform, false, stream, "util.convert");
}

void convert_into(const Array& image, Array& out, const ConvertOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "util.convert_into";
  detail::expect_valid(image, fn, "image");
  detail::expect_valid(out, fn, "out");
  detail::expect_same_shape(image, out, fn, "image", "out");
  detail::expect_same_device(image, out, fn, "image", "out");
  if (image.dtype() == out.dtype()) return out.copy_from(image, stream);
  const detail::ConvertPlan plan = detail::prepare(image, out.dtype(), opts.uniform, stream, fn);
  detail::run_convert(image, out, plan, stream);
}

}  // namespace cuskimage::util
