// Host reference of the CUDA watershed's relaxation (watershed_relax.hpp): sweeps of the shared
// per-pixel update until nothing changes, Jacobi (as the device's tiles between launches) or in
// place (a different order, which must reach the same fixed point).
#include <cstdint>
#include <vector>

#include "src/segmentation/watershed.hpp"
#include "src/segmentation/watershed_relax.hpp"

namespace cuskimage::segmentation::detail {

Array relax_reference(const Array& image, const Array& mask, const Array& markers, const std::vector<int>& nbrs,
                      RelaxOrder order) {
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
  auto update = [&](const std::vector<WsState>& from, std::int64_t i) {
    if (from[i].src == -2 || k[i] != 0) return from[i];
    const std::int64_t z = i / (ny * nx), y = (i / nx) % ny, x = i % nx;
    WsState best = ws_unreached();
    for (std::size_t e = 0; e < nn; ++e) {
      const std::int64_t zz = z + nbrs[3 * e], yy = y + nbrs[3 * e + 1], xx = x + nbrs[3 * e + 2];
      if (zz < 0 || zz >= nz || yy < 0 || yy >= ny || xx < 0 || xx >= nx) continue;
      ws_consider(best, from[(zz * ny + yy) * nx + xx]);
    }
    return ws_from_parent(v[i], best);
  };
  for (bool changed = true, forward = true; changed; forward = !forward) {
    changed = false;
    if (order == RelaxOrder::jacobi) {
      for (std::int64_t i = 0; i < n; ++i) {
        nxt[i] = update(cur, i);
        changed |= !ws_same(nxt[i], cur[i]);
      }
      cur.swap(nxt);
    } else {  // in place, alternating directions: another fair order of the same updates
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t i = forward ? j : n - 1 - j;
        const WsState s = update(cur, i);
        changed |= !ws_same(s, cur[i]);
        cur[i] = s;
      }
    }
  }
  Array out = Array::zeros(image.shape(), DType::int64);
  auto* o = out.data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) o[i] = cur[i].src >= 0 ? k[cur[i].src] : 0;
  return out;
}

}  // namespace cuskimage::segmentation::detail
