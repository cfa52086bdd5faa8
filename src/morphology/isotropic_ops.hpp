// Element-wise pieces of the isotropic morphology (src/morphology/isotropic.cpp), shared by the CPU
// loops and the CUDA kernels (kernels/morphology/isotropic.cu).
#pragma once

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::morphology::detail {

/// scikit-image's np.greater(dist, radius) (erosion) / np.less_equal(dist, radius) (dilation).
struct EdtThreshold {
  double radius;
  bool greater;
  CUSK_HD bool operator()(double d) const { return greater ? d > radius : d <= radius; }
};

struct LogicalNot {
  CUSK_HD bool operator()(bool v) const { return !v; }
};

/// CUDA: out (bool, any strides) = f(dist) / !mask (mask: bool).
void cuda_edt_threshold(const Array& dist, Array& out, EdtThreshold f, const Stream& stream);
void cuda_logical_not(const Array& mask, Array& out, const Stream& stream);

}  // namespace cuskimage::morphology::detail
