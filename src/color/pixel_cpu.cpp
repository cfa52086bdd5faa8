// CPU backend of the pixel conversions and colour differences: OpenMP over rows of the coalesced
// pixel layout, the same per-pixel ops as the CUDA kernels (src/color/colorconv.hpp, delta_e.hpp).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "src/color/backend.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"

namespace cuskimage::color::detail {
namespace {

using cuskimage::detail::for_each_row;
using cuskimage::detail::Layout;
using cuskimage::detail::layout_of;
using cuskimage::detail::Types;

template <class In, class T, class OpT>
void run_pixel(const OpT& op, const Array& in, Array& out) {
  constexpr int CI = OpT::cin, CO = OpT::cout;
  // Pixel layouts: the arrays without their channel axis.
  const Array in_px = in.index(in.ndim() - 1, 0);
  const Array out_px = out.index(out.ndim() - 1, 0);
  const Layout L = layout_of({&out_px, &in_px});
  const std::int64_t ci = in.strides().back(), co = out.strides().back();
  const In* ip = static_cast<const In*>(in.data());
  T* opp = static_cast<T*>(out.data());
  const std::int64_t so = L.shape.empty() ? 1 : L.strides[0].back();
  const std::int64_t si = L.shape.empty() ? 1 : L.strides[1].back();
  // uint8: the op's tables, built once (the CUDA launches pass the same tables to the kernels).
  constexpr bool kU8 = std::is_same_v<In, std::uint8_t> && OpT::u8_tables > 0;
  std::vector<double> tables;
  if constexpr (kU8) {
    tables.resize(static_cast<std::size_t>(OpT::u8_tables) * 256);
    op.u8_table(tables.data());
  }
  const double* tab = tables.data();
  for_each_row<2>(L, [&](std::int64_t, std::int64_t n, const std::int64_t* off) {
    T* o = opp + off[0];
    const In* p = ip + off[1];
    for (std::int64_t j = 0; j < n; ++j) {
      const In* px = p + j * si;
      T y[CO];
      if constexpr (kU8) {
        std::uint8_t b[CI];
        for (int c = 0; c < CI; ++c) b[c] = px[c * ci];
        if constexpr (OpT::u8_custom) {
          op.u8(b, tab, y);
        } else {
          T x[CI];
          for (int c = 0; c < CI; ++c) x[c] = tab[b[c]];
          op(x, y);
        }
      } else {
        T x[CI];
        for (int c = 0; c < CI; ++c) x[c] = op.pre(op.template load<T>(px[c * ci], c));
        op(x, y);
      }
      T* py = o + j * so;
      for (int c = 0; c < CO; ++c) py[c * co] = y[c];
    }
  });
}

}  // namespace

void cpu_pixel(Op op, const PixelParams& p, const Array& in, Array& out) {
  if (in.size() == 0 || out.size() == 0) return;
  if (op == Op::linear && !(in.dtype() == DType::uint8 || in.dtype() == DType::uint16 || in.dtype() == DType::float32 ||
                            in.dtype() == DType::float64)) {
    // ycbcr2rgb on other integer dtypes (offsets subtracted in that dtype).
    cuskimage::detail::dispatch<Types<std::int8_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t, std::int64_t>>(
        in.dtype(), "color", [&]<class In>() { run_pixel<In, double>(LinearOp{{}, p}, in, out); });
    return;
  }
  cuskimage::detail::dispatch<Types<std::uint8_t, std::uint16_t, float, double>>(
      in.dtype(), "color", [&]<class In>() {
        using T = std::conditional_t<std::is_same_v<In, float>, float, double>;
        with_op(op, p, [&](const auto& o) { run_pixel<In, T>(o, in, out); });
      });
}

void cpu_delta_e(DeltaKind kind, const DeltaParams& p, const Array& lab1, const Array& lab2, Array& out) {
  if (out.size() == 0) return;
  cuskimage::detail::dispatch<Types<float, double>>(out.dtype(), "color.deltaE", [&]<class T>() {
    const Array a_px = lab1.index(lab1.ndim() - 1, 0);
    const Array b_px = lab2.index(lab2.ndim() - 1, 0);
    const Layout L = layout_of({&out, &a_px, &b_px});
    const std::int64_t ca = lab1.strides().back(), cb = lab2.strides().back();
    const T* ap = static_cast<const T*>(lab1.data());
    const T* bp = static_cast<const T*>(lab2.data());
    T* op = static_cast<T*>(out.data());
    const std::int64_t so = L.shape.empty() ? 1 : L.strides[0].back();
    const std::int64_t sa = L.shape.empty() ? 1 : L.strides[1].back();
    const std::int64_t sb = L.shape.empty() ? 1 : L.strides[2].back();
    for_each_row<3>(L, [&](std::int64_t, std::int64_t n, const std::int64_t* off) {
      for (std::int64_t j = 0; j < n; ++j) {
        const T* pa = ap + off[1] + j * sa;
        const T* pb = bp + off[2] + j * sb;
        const T l1[3] = {pa[0], pa[ca], pa[2 * ca]};
        const T l2[3] = {pb[0], pb[cb], pb[2 * cb]};
        op[off[0] + j * so] = delta_e(kind, p, l1, l2);
      }
    });
  });
}

}  // namespace cuskimage::color::detail
