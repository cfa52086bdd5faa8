// measure.marching_cubes: argument handling, the default level, the CPU backend (the per-cube rules
// of src/measure/marching_cubes.hpp walked in raster order, OpenMP over z-slabs of lattice
// points) and the degenerate-face removal both backends share.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/measure/marching_cubes.hpp"
#include "src/util/backend.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::expect;
using detail::McGrid;

constexpr std::string_view kFn = "measure.marching_cubes";

/// Index of `key` in the sorted `keys` (it is always there).
std::int64_t find_key(const std::vector<std::int64_t>& keys, std::int64_t key) {
  return std::lower_bound(keys.begin(), keys.end(), key) - keys.begin();
}

detail::McArrays cpu_marching_cubes(const McGrid& g, const double spacing[3], bool descent) {
  // ---- vertices: per z-slab of lattice points, then concatenated in key order
  std::vector<std::vector<std::int64_t>> slab_keys(static_cast<std::size_t>(g.pz));
  std::vector<std::vector<detail::McVertex>> slab_verts(static_cast<std::size_t>(g.pz));
  std::vector<std::int64_t> slab_tris(static_cast<std::size_t>(g.pz), 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t k = 0; k < g.pz; ++k) {
    auto& keys = slab_keys[static_cast<std::size_t>(k)];
    auto& verts = slab_verts[static_cast<std::size_t>(k)];
    std::int64_t tris = 0;
    for (std::int64_t j = 0; j < g.py; ++j)
      for (std::int64_t i = 0; i < g.px; ++i) {
        int nt = 0;
        const int bits = detail::mc_point(g, i, j, k, nt);
        tris += nt;
        for (int slot = 0; slot < 4; ++slot) {
          if (!((bits >> slot) & 1)) continue;
          keys.push_back(detail::mc_key(g, i, j, k, slot));
          verts.push_back(detail::mc_vertex(g, i, j, k, slot, spacing));
        }
      }
    slab_tris[static_cast<std::size_t>(k)] = tris;
  }
  std::vector<std::int64_t> keys;
  std::vector<detail::McVertex> verts;
  for (std::int64_t k = 0; k < g.pz; ++k) {
    keys.insert(keys.end(), slab_keys[k].begin(), slab_keys[k].end());
    verts.insert(verts.end(), slab_verts[k].begin(), slab_verts[k].end());
  }
  const auto nv = static_cast<std::int64_t>(keys.size());
  std::vector<std::int64_t> tri_off(static_cast<std::size_t>(g.pz) + 1, 0);
  for (std::int64_t k = 0; k < g.pz; ++k) tri_off[k + 1] = tri_off[k] + slab_tris[k];
  const std::int64_t nf = tri_off[g.pz];

  detail::McArrays out;
  out.verts = Array::empty({nv, 3}, DType::float32);
  out.normals = Array::empty({nv, 3}, DType::float32);
  out.values = Array::empty({nv}, DType::float32);
  out.faces = Array::empty({nf, 3}, DType::int32);
  auto* pv = static_cast<float*>(out.verts.data());
  auto* pn = static_cast<float*>(out.normals.data());
  auto* pval = static_cast<float*>(out.values.data());
  for (std::int64_t v = 0; v < nv; ++v) {
    std::memcpy(pv + 3 * v, verts[v].pos, 3 * sizeof(float));
    std::memcpy(pn + 3 * v, verts[v].normal, 3 * sizeof(float));
    pval[v] = verts[v].value;
  }
  // ---- faces: cube raster order, local vertices mapped to their owner's key
  auto* pf = static_cast<std::int32_t*>(out.faces.data());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t k = 0; k < g.cz; ++k) {
    std::int64_t f = tri_off[k];
    double v[8];
    unsigned char tri[36];
    for (std::int64_t j = 0; j < g.cy; ++j)
      for (std::int64_t i = 0; i < g.cx; ++i) {
        const int nt = detail::mc_cube(g, i, j, k, v, tri);
        for (int t = 0; t < nt; ++t, ++f)
          for (int c = 0; c < 3; ++c) {
            int di, dj, dk, slot;
            detail::mc_local_owner(tri[3 * t + c], di, dj, dk, slot);
            const std::int64_t idx = find_key(keys, detail::mc_key(g, i + di, j + dj, k + dk, slot));
            pf[3 * f + (descent ? 2 - c : c)] = static_cast<std::int32_t>(idx);
          }
      }
  }
  return out;
}

/// scikit-image's remove_degenerate_faces with its merge chains resolved: a face with two equal
/// float32 vertices is dropped, the vertices such faces join are merged into the lowest index of
/// their group (scikit-image maps each pair to the lower index in face order and can leave a vertex
/// pointing at a dropped one), kept vertices are renumbered in order, faces become int64. Host
/// arrays; the device version is cuda_remove_degenerate (same result).
MarchingCubesResult remove_degenerate(MarchingCubesResult r) {
  const std::int64_t nv = r.verts.shape(0), nf = r.faces.shape(0);
  const auto* v = static_cast<const float*>(r.verts.data());
  const auto* f = static_cast<const std::int32_t*>(r.faces.data());
  std::vector<std::int64_t> map1(static_cast<std::size_t>(nv));
  std::iota(map1.begin(), map1.end(), 0);
  auto find = [&](std::int64_t x) {
    while (map1[x] != x) x = map1[x] = map1[map1[x]];
    return x;
  };
  auto unite = [&](std::int64_t a, std::int64_t b) {
    a = find(a), b = find(b);
    if (a != b) map1[std::max(a, b)] = std::min(a, b);
  };
  std::vector<char> face_ok(static_cast<std::size_t>(nf), 1);
  auto same = [&](std::int64_t a, std::int64_t b) {
    return v[3 * a] == v[3 * b] && v[3 * a + 1] == v[3 * b + 1] && v[3 * a + 2] == v[3 * b + 2];
  };
  for (std::int64_t j = 0; j < nf; ++j) {
    const std::int64_t i1 = f[3 * j], i2 = f[3 * j + 1], i3 = f[3 * j + 2];
    if (same(i1, i2)) unite(i1, i2), face_ok[j] = 0;
    if (same(i1, i3)) unite(i1, i3), face_ok[j] = 0;
    if (same(i2, i3)) unite(i2, i3), face_ok[j] = 0;
  }
  for (std::int64_t i = 0; i < nv; ++i) map1[i] = find(i);
  std::vector<std::int64_t> map2(static_cast<std::size_t>(nv));
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < nv; ++i) {
    if (map1[i] == i) ++kept;
    map2[i] = kept - 1;
  }
  std::int64_t nf2 = 0;
  for (std::int64_t j = 0; j < nf; ++j) nf2 += face_ok[j];
  MarchingCubesResult o;
  o.verts = Array::empty({kept, 3}, DType::float32);
  o.normals = Array::empty({kept, 3}, DType::float32);
  o.values = Array::empty({kept}, DType::float32);
  o.faces = Array::empty({nf2, 3}, DType::int64);
  auto* ov = static_cast<float*>(o.verts.data());
  auto* on = static_cast<float*>(o.normals.data());
  auto* oval = static_cast<float*>(o.values.data());
  const auto* n = static_cast<const float*>(r.normals.data());
  const auto* val = static_cast<const float*>(r.values.data());
  for (std::int64_t i = 0, w = 0; i < nv; ++i) {
    if (map1[i] != i) continue;
    std::memcpy(ov + 3 * w, v + 3 * i, 3 * sizeof(float));
    std::memcpy(on + 3 * w, n + 3 * i, 3 * sizeof(float));
    oval[w++] = val[i];
  }
  auto* of = static_cast<std::int64_t*>(o.faces.data());
  for (std::int64_t j = 0, w = 0; j < nf; ++j) {
    if (!face_ok[j]) continue;
    for (int c = 0; c < 3; ++c) of[3 * w + c] = map2[map1[f[3 * j + c]]];
    ++w;
  }
  return o;
}

/// The iso-value: the given one (checked against the data range) or (min + max) / 2 in float32, as
/// NumPy computes scikit-image's default; NaN data make both NaN (no check, no surface), as there.
double level_of(const util::detail::MinMax<float>& mm, std::optional<double> level) {
  if (mm.nan) return level ? *level : std::nan("");
  if (!level) return static_cast<double>(0.5f * (mm.lo + mm.hi));
  expect(!(*level < mm.lo || *level > mm.hi), kFn, "level", "must be within the volume data range [", mm.lo, ", ",
         mm.hi, "], got ", *level);
  return *level;
}

}  // namespace

MarchingCubesResult marching_cubes(const Array& volume, const MarchingCubesOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(volume, kFn, "volume");
  expect(volume.ndim() == 3, kFn, "volume", "must be a 3D array, got ndim ", volume.ndim());
  expect(volume.shape(0) >= 2 && volume.shape(1) >= 2 && volume.shape(2) >= 2, kFn, "volume",
         "must be at least 2x2x2, got shape ", shape_str(volume.shape()));
  expect(opts.step_size >= 1, kFn, "step_size", "must be at least one, got ", opts.step_size);
  Array mask;
  if (opts.mask.valid()) {
    expect(opts.mask.shape() == volume.shape(), kFn, "mask", "must have the volume's shape ",
           shape_str(volume.shape()), ", got ", shape_str(opts.mask.shape()));
    cuskimage::detail::expect_same_device(volume, opts.mask, kFn, "volume", "mask");
    mask = opts.mask.dtype() == DType::bool_ ? opts.mask.contiguous(stream) : opts.mask.astype(DType::bool_, stream);
  }
  const bool lewiner = opts.method == MarchingCubesMethod::lewiner;
  const bool descent = opts.gradient_direction == GradientDirection::descent;
  const double spacing[3] = {opts.spacing[0], opts.spacing[1], opts.spacing[2]};

  MarchingCubesResult r = cuskimage::detail::on_backend(
      volume, stream,
      [&]() -> MarchingCubesResult {
        const Array vol = volume.dtype() == DType::float32 ? volume.contiguous() : volume.astype(DType::float32);
        const auto mm = util::detail::cpu_minmax<float>(vol, 1)[0];
        McGrid g = detail::mc_grid(vol.shape(0), vol.shape(1), vol.shape(2), opts.step_size);
        g.vol = static_cast<const float*>(vol.data());
        g.mask = mask.valid() ? static_cast<const bool*>(mask.data()) : nullptr;
        g.lewiner = lewiner;
        g.level = level_of(mm, opts.level);
        auto a = cpu_marching_cubes(g, spacing, descent);
        return {std::move(a.verts), std::move(a.faces), std::move(a.normals), std::move(a.values)};
      },
      [&](const Stream& s) -> MarchingCubesResult {  // outputs are allocated with `stream` (owned)
        const Array vol = volume.dtype() == DType::float32 ? volume.contiguous(stream)
                                                            : volume.astype(DType::float32, stream);
        const auto mm = util::detail::cuda_minmax<float>(vol, 1, s)[0];
        McGrid g = detail::mc_grid(vol.shape(0), vol.shape(1), vol.shape(2), opts.step_size);
        g.vol = static_cast<const float*>(vol.data());
        g.mask = mask.valid() ? static_cast<const bool*>(mask.data()) : nullptr;
        g.lewiner = lewiner;
        g.level = level_of(mm, opts.level);
        auto a = detail::cuda_marching_cubes(g, spacing, descent, volume.device(), stream);
        return {std::move(a.verts), std::move(a.faces), std::move(a.normals), std::move(a.values)};
      });
  if (r.verts.shape(0) == 0)
    cuskimage::detail::fail(kFn, "no surface found at the given iso value (argument 'level')");
  if (opts.allow_degenerate) return r;
  if (volume.device().is_cpu()) return remove_degenerate(std::move(r));
  cuskimage::detail::DeviceGuard guard(volume.device().index());
  detail::McArrays m{std::move(r.verts), std::move(r.faces), std::move(r.normals), std::move(r.values)};
  auto o = detail::cuda_remove_degenerate(m, volume.device(), stream);
  return {std::move(o.verts), std::move(o.faces), std::move(o.normals), std::move(o.values)};
}

}  // namespace cuskimage::measure
