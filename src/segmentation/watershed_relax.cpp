// Host reference of the CUDA watershed's relaxation (watershed_relax.hpp): Jacobi sweeps of the
// shared per-pixel update until nothing changes.
#include <cstdint>
#include <vector>

#include "src/segmentation/watershed.hpp"
#include "src/segmentation/watershed_relax.hpp"

namespace cuskimage::segmentation::detail {

Array relax_reference(const Array& image, const Array& mask, const Array& markers, const std::vector<int>& nbrs) {
  const int nd = image.ndim();
  std::int64_t dims[3] = {1, 1, 1};
  for (int k = 0; k < nd; ++k) dims[3 - nd + k] = image.shape()[k];
  const std::int64_t nz = dims[0], ny = dims[1], nx = dims[2], n = image.size();
  const Array img = image.astype(DType::float64).contiguous();
  const Array msk = mask.astype(DType::uint8).contiguous();
  const Array mk = markers.astype(DType::int64).contiguous();
  const double* v = img.data<double>();
  const std::uint8_t* m = msk.data<std::uint8_t>();
  const std::int64_t* k = mk.data<std::int64_t>();
  std::vector<WsState> cur(n), nxt(n);
  for (std::int64_t i = 0; i < n; ++i)
    cur[i] = !m[i] ? ws_wall() : k[i] != 0 ? ws_marker(v[i], static_cast<std::int32_t>(i)) : ws_unreached();
  const std::size_t nn = nbrs.size() / 3;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::int64_t z = 0, i = 0; z < nz; ++z)
      for (std::int64_t y = 0; y < ny; ++y)
        for (std::int64_t x = 0; x < nx; ++x, ++i) {
          nxt[i] = cur[i];
          if (cur[i].src == -2 || k[i] != 0) continue;
          WsState best = ws_unreached();
          for (std::size_t e = 0; e < nn; ++e) {
            const std::int64_t zz = z + nbrs[3 * e], yy = y + nbrs[3 * e + 1], xx = x + nbrs[3 * e + 2];
            if (zz < 0 || zz >= nz || yy < 0 || yy >= ny || xx < 0 || xx >= nx) continue;
            ws_consider(best, cur[(zz * ny + yy) * nx + xx]);
          }
          nxt[i] = ws_from_parent(v[i], best);
          changed |= !ws_same(nxt[i], cur[i]);
        }
    cur.swap(nxt);
  }
  Array out = Array::zeros(image.shape(), DType::int64);
  auto* o = out.data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) o[i] = cur[i].src >= 0 ? k[cur[i].src] : 0;
  return out;
}

}  // namespace cuskimage::segmentation::detail
