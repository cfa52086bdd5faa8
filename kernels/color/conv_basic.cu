// CUDA pixel conversions without CIE XYZ: matrices, HSV, stains, LCh, grey, RGBA, and the
// dispatcher of every pixel op.
#include "kernels/color/pixel.cuh"
#include "src/color/backend.hpp"

namespace cuskimage::color::detail {

bool cuda_pixel_basic(Op op, const PixelParams& p, const Array& in, Array& out, cudaStream_t stream) {
  switch (op) {
    case Op::linear:
      switch (in.dtype()) {  // ycbcr2rgb reads other integer dtypes raw (offsets in that dtype)
        case DType::int8: launch_pixel<std::int8_t, double>(LinearOp{{}, p}, in, out, stream); return true;
        case DType::int16: launch_pixel<std::int16_t, double>(LinearOp{{}, p}, in, out, stream); return true;
        case DType::uint32: launch_pixel<std::uint32_t, double>(LinearOp{{}, p}, in, out, stream); return true;
        case DType::int32: launch_pixel<std::int32_t, double>(LinearOp{{}, p}, in, out, stream); return true;
        case DType::uint64: launch_pixel<std::uint64_t, double>(LinearOp{{}, p}, in, out, stream); return true;
        case DType::int64: launch_pixel<std::int64_t, double>(LinearOp{{}, p}, in, out, stream); return true;
        default: launch_pixel_any(LinearOp{{}, p}, in, out, stream); return true;
      }
    case Op::rgb2hsv: launch_pixel_any(RgbToHsvOp{{}, p}, in, out, stream); return true;
    case Op::hsv2rgb: launch_pixel_any(HsvToRgbOp{{}, p}, in, out, stream); return true;
    case Op::separate: launch_pixel_any(SeparateOp{{}, p}, in, out, stream); return true;
    case Op::combine: launch_pixel_any(CombineOp{{}, p}, in, out, stream); return true;
    case Op::lab2lch: launch_pixel_any(LabToLchOp{{}, p}, in, out, stream); return true;
    case Op::lch2lab: launch_pixel_any(LchToLabOp{{}, p}, in, out, stream); return true;
    case Op::rgb2gray: launch_pixel_any(RgbToGrayOp{{}, p}, in, out, stream); return true;
    case Op::rgba2rgb: launch_pixel_any(RgbaToRgbOp{{}, p}, in, out, stream); return true;
    case Op::saturate: launch_pixel_any(SaturateOp{{}, p}, in, out, stream); return true;
    default: return false;
  }
}

void cuda_pixel(Op op, const PixelParams& p, const Array& in, Array& out, cudaStream_t stream) {
  if (in.size() == 0 || out.size() == 0) return;
  if (cuda_pixel_basic(op, p, in, out, stream)) return;
  if (!cuda_pixel_cie(op, p, in, out, stream)) throw InvalidArgument("color: internal: unknown pixel op");
}

}  // namespace cuskimage::color::detail
