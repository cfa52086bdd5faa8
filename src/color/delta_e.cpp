// skimage.color.delta_e: argument handling (dtype rule, channel axis, broadcasting) over the shared
// per-pixel differences.
#include "cuskimage/color.hpp"
#include "src/color/common.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::color {

namespace {

Array run_delta(std::string_view fn, detail::DeltaKind kind, const detail::DeltaParams& p, const Array& lab1,
                const Array& lab2, int channel_axis, const Stream& s) {
  using cuskimage::detail::expect;
  cuskimage::detail::expect_valid(lab1, fn, "lab1");
  cuskimage::detail::expect_valid(lab2, fn, "lab2");
  cuskimage::detail::expect_same_device(lab1, lab2, fn, "lab1", "lab2");
  expect(lab1.ndim() >= 1, fn, "lab1", "must have a channel axis, got a 0-d array");
  expect(lab2.ndim() >= 1, fn, "lab2", "must have a channel axis, got a 0-d array");
  const int ax1 = cuskimage::detail::normalize_axis(channel_axis, lab1.ndim(), fn, "channel_axis");
  const int ax2 = cuskimage::detail::normalize_axis(channel_axis, lab2.ndim(), fn, "channel_axis");
  expect(lab1.shape(ax1) >= 3, fn, "lab1", "must have at least 3 channels along channel_axis, got shape ",
         shape_str(lab1.shape()));
  expect(lab2.shape(ax2) >= 3, fn, "lab2", "must have at least 3 channels along channel_axis, got shape ",
         shape_str(lab2.shape()));
  // _float_inputs: astype to float32 when both are float32, else float64.
  const DType dt =
      lab1.dtype() == DType::float32 && lab2.dtype() == DType::float32 ? DType::float32 : DType::float64;
  const Array a = lab1.dtype() == dt ? lab1.share() : lab1.astype(dt, s);
  const Array b = lab2.dtype() == dt ? lab2.share() : lab2.astype(dt, s);
  Array a_cl = detail::move_axis_last(a, ax1);
  Array b_cl = detail::move_axis_last(b, ax2);
  Shape pa(a_cl.shape().begin(), a_cl.shape().end() - 1), pb(b_cl.shape().begin(), b_cl.shape().end() - 1);
  const Shape px = detail::broadcast_shapes(pa, pb, fn, "lab1 and lab2");
  auto widen = [&](const Array& v) {
    Shape sh = px;
    sh.push_back(3);
    Strides st(px.size() + 1, 0);
    const std::size_t k = static_cast<std::size_t>(v.ndim()) - 1;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t j = px.size() - k + i;
      st[j] = v.shape()[i] == px[j] ? v.strides()[i] : 0;
    }
    st.back() = v.strides().back();
    return v.as_strided(sh, st);
  };
  const Array a3 = widen(a_cl), b3 = widen(b_cl);
  Array out = Array::empty(px, dt, lab1.device(), s);
  cuskimage::detail::on_backend(
      a3, s, [&] { detail::cpu_delta_e(kind, p, a3, b3, out); },
      [&](const Stream& cs) { detail::cuda_delta_e(kind, p, a3, b3, out, cs); });
  return out;
}

}  // namespace

Array deltaE_cie76(const Array& lab1, const Array& lab2, const ChannelOptions& o, const Stream& s) {
  return run_delta("color.deltaE_cie76", detail::DeltaKind::cie76, {}, lab1, lab2, o.channel_axis, s);
}

Array deltaE_ciede94(const Array& lab1, const Array& lab2, const DeltaE94Options& o, const Stream& s) {
  const detail::DeltaParams p{.kL = o.kL, .kC = o.kC, .kH = o.kH, .k1 = o.k1, .k2 = o.k2};
  return run_delta("color.deltaE_ciede94", detail::DeltaKind::ciede94, p, lab1, lab2, o.channel_axis, s);
}

Array deltaE_ciede2000(const Array& lab1, const Array& lab2, const DeltaE2000Options& o, const Stream& s) {
  const detail::DeltaParams p{.kL = o.kL, .kC = o.kC, .kH = o.kH};
  return run_delta("color.deltaE_ciede2000", detail::DeltaKind::ciede2000, p, lab1, lab2, o.channel_axis, s);
}

Array deltaE_cmc(const Array& lab1, const Array& lab2, const DeltaECmcOptions& o, const Stream& s) {
  const detail::DeltaParams p{.kL = o.kL, .kC = o.kC};
  return run_delta("color.deltaE_cmc", detail::DeltaKind::cmc, p, lab1, lab2, o.channel_axis, s);
}

}  // namespace cuskimage::color
