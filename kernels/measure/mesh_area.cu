// CUDA mesh_surface_area (src/measure/mesh_area.cpp): a two-slot reduction
// (kernels/core/slot_reduce.cuh) of the triangle cross-product norms and of the faces whose vertex
// index is out of bounds.
#include <algorithm>
#include <cstdint>
#include <cmath>

#include "kernels/core/slot_reduce.cuh"
#include "src/measure/mesh_area.hpp"

namespace cuskimage::measure::detail {
namespace {

using namespace cuskimage::detail::slots;  // device_reduce, SlotOps, kSum / kMin / kMax

struct MeshTerm {
  const double* v;
  const std::int64_t* f;
  std::int64_t nv;
  __device__ void operator()(std::int64_t k, double* acc) const {
    std::int64_t id[3];
    for (int e = 0; e < 3; ++e) {
      std::int64_t q = f[3 * k + e];
      if (q < 0) q += nv;
      if (q < 0 || q >= nv) {
        acc[1] += 1;
        return;
      }
      id[e] = q;
    }
    const double* p0 = v + 3 * id[0];
    const double* p1 = v + 3 * id[1];
    const double* p2 = v + 3 * id[2];
    const double a0 = p0[0] - p1[0], a1 = p0[1] - p1[1], a2 = p0[2] - p1[2];
    const double b0 = p0[0] - p2[0], b1 = p0[1] - p2[1], b2 = p0[2] - p2[2];
    const double c0 = a1 * b2 - a2 * b1, c1 = a2 * b0 - a0 * b2, c2 = a0 * b1 - a1 * b0;
    acc[0] += sqrt(c0 * c0 + c1 * c1 + c2 * c2);
  }
};

}  // namespace

double cuda_mesh_area(const Array& verts, const Array& faces, const Stream& stream) {
  const std::int64_t nf = faces.shape(0);
  if (nf == 0) return 0.0;
  const MeshTerm term{static_cast<const double*>(verts.data()), static_cast<const std::int64_t*>(faces.data()),
                      verts.shape(0)};
  const auto r = device_reduce<2>(nf, term, SlotOps<2>{{kSum, kSum}}, verts.device(), stream);
  return r[1] > 0 ? -1.0 : r[0];
}

}  // namespace cuskimage::measure::detail
