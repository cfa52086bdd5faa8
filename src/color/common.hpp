// Host helpers shared by the color module's public functions: channel-axis handling, the float
// dtype rule and NumPy broadcasting of views.
#pragma once

#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/color/backend.hpp"

namespace cuskimage::color::detail {

/// A view of `a` with axis `axis` (already normalised) moved last.
Array move_axis_last(const Array& a, int axis);
/// A view of `a` (channel-last) with its last axis moved to `axis`.
Array move_last_to(const Array& a, int axis);

/// True when the kernels read `dt` directly (uint8, uint16, float32, float64).
bool direct_dtype(DType dt);
/// `a` itself when direct_dtype, else util::img_as_float64(a).
Array readable(const Array& a, const Stream& stream);
/// float32 for float32 input, else float64 (scikit-image's _supported_float_type).
DType float_type(DType dt);

/// Runs a pixel op over `arr`: validates it and channel_axis (size `cin` along it, or >= cin when
/// `at_least`), returns the result with `cout` channels at channel_axis (or none when `drop`).
Array pixel_op(std::string_view fn, std::string_view arg, const Array& arr, int channel_axis, Op op,
               const PixelParams& p, int cin, int cout, bool drop, const Stream& stream);
/// pixel_op into a preallocated result `out` (validated: shape, dtype, device).
void pixel_op_into(std::string_view fn, std::string_view arg, const Array& arr, Array& out, int channel_axis, Op op,
                   const PixelParams& p, int cin, int cout, bool drop, const Stream& stream);
/// Same into a preallocated channel-last result `out` (..., cout) of the right dtype; `in` is the
/// channel-last readable input.
void pixel_into(Op op, const PixelParams& p, const Array& in, Array& out, const Stream& stream);

/// Reference white of (illuminant, observer) as PixelParams::white.
void set_white(PixelParams& p, std::string_view fn, std::string_view illuminant, std::string_view observer);

/// NumPy's broadcast shape of a and b; InvalidArgument naming fn when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view fn, std::string_view what);
/// A view of `a` broadcast to `shape` (zero strides on new or stretched axes).
Array broadcast_to(const Array& a, const Shape& shape);

}  // namespace cuskimage::color::detail
