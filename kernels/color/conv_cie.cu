// CUDA pixel conversions through CIE XYZ (xyz, lab, luv): the compute-heavier half of the ops.
#include "kernels/color/pixel.cuh"
#include "src/color/backend.hpp"

namespace cuskimage::color::detail {

bool cuda_pixel_cie(Op op, const PixelParams& p, const Array& in, Array& out, cudaStream_t stream) {
  switch (op) {
    case Op::rgb2xyz: launch_pixel_any(RgbToXyzOp{{}, p}, in, out, stream); return true;
    case Op::xyz2rgb: launch_pixel_any(XyzToRgbOp{{}, p}, in, out, stream); return true;
    case Op::xyz2lab: launch_pixel_any(XyzToLabOp{{}, p, {}}, in, out, stream); return true;
    case Op::lab2xyz: launch_pixel_any(LabToXyzOp{{}, p}, in, out, stream); return true;
    case Op::rgb2lab: launch_pixel_any(RgbToLabOp{{}, p, {}}, in, out, stream); return true;
    case Op::lab2rgb: launch_pixel_any(LabToRgbOp{{}, p}, in, out, stream); return true;
    case Op::xyz2luv: launch_pixel_any(XyzToLuvOp{{}, p}, in, out, stream); return true;
    case Op::luv2xyz: launch_pixel_any(LuvToXyzOp{{}, p}, in, out, stream); return true;
    case Op::rgb2luv: launch_pixel_any(RgbToLuvOp{{}, p}, in, out, stream); return true;
    case Op::luv2rgb: launch_pixel_any(LuvToRgbOp{{}, p}, in, out, stream); return true;
    default: return false;
  }
}

}  // namespace cuskimage::color::detail
