// skimage.measure.mesh_surface_area: argument handling, the CPU sum and the finishing of the CUDA
// reduction (kernels/measure/mesh_area.cu).
#include <cmath>
#include <cstdint>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/measure/mesh_area.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::fail;
using cuskimage::detail::on_backend;

}  // namespace

double mesh_surface_area(const Array& verts, const Array& faces, const Stream& stream) {
  constexpr std::string_view fn = "measure.mesh_surface_area";
  expect_valid(verts, fn, "verts");
  expect_valid(faces, fn, "faces");
  expect(verts.ndim() == 2 && verts.shape(1) == 3, fn, "verts", "must have shape (V, 3), got ",
         shape_str(verts.shape()));
  expect(faces.ndim() == 2 && faces.shape(1) == 3, fn, "faces", "must have shape (F, 3), got ",
         shape_str(faces.shape()));
  expect(faces.dtype() != DType::bool_ && faces.dtype() != DType::float32 && faces.dtype() != DType::float64, fn,
         "faces", "must hold integer vertex indices, got ", dtype_name(faces.dtype()));
  cuskimage::detail::expect_same_device(verts, faces, fn, "verts", "faces");
  const Array v = verts.astype(DType::float64, stream).contiguous(stream);
  const Array f = faces.astype(DType::int64, stream).contiguous(stream);
  const std::int64_t nv = v.shape(0);
  return on_backend(
      verts, stream,
      [&] {
        const double* vp = static_cast<const double*>(v.data());
        const std::int64_t* fp = static_cast<const std::int64_t*>(f.data());
        double total = 0.0;
        for (std::int64_t k = 0; k < f.shape(0); ++k) {
          std::int64_t id[3];
          for (int e = 0; e < 3; ++e) {
            id[e] = fp[3 * k + e] < 0 ? fp[3 * k + e] + nv : fp[3 * k + e];  // NumPy's negative indices
            expect(id[e] >= 0 && id[e] < nv, fn, "faces", "index ", fp[3 * k + e], " is out of bounds for ", nv,
                   " vertices");
          }
          const double* p0 = vp + 3 * id[0];
          const double* p1 = vp + 3 * id[1];
          const double* p2 = vp + 3 * id[2];
          const double a[3] = {p0[0] - p1[0], p0[1] - p1[1], p0[2] - p1[2]};
          const double b[3] = {p0[0] - p2[0], p0[1] - p2[1], p0[2] - p2[2]};
          const double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2], c2 = a[0] * b[1] - a[1] * b[0];
          total += std::sqrt(c0 * c0 + c1 * c1 + c2 * c2);
        }
        return total / 2.0;
      },
      [&](const auto&) {
        const double area = detail::cuda_mesh_area(v, f, stream);  // negative: an index out of bounds
        if (area < 0) fail(fn, "argument 'faces' holds an index out of bounds for ", nv, " vertices");
        return area / 2.0;
      });
}

}  // namespace cuskimage::measure
