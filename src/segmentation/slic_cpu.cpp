// segmentation.slic, CPU backend: _slic_cython's k-means and _enforce_label_connectivity_cython,
// step for step (loop order, strict comparisons, sums accumulated in the working float in raster
// order), so the labels equal scikit-image's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/segmentation/slic.hpp"

namespace cuskimage::segmentation::detail {

template <class T>
void cpu_slic_kmeans(const T* image, const std::uint8_t* mask, std::vector<T>& centres, const SlicProblem& p,
                     std::int64_t* labels) {
  const std::int64_t D = p.depth, H = p.height, W = p.width, C = p.channels, nf = 3 + C;
  const std::int64_t n = static_cast<std::int64_t>(centres.size()) / nf, npix = D * H * W;
  const std::int64_t mask_label = p.start_label - 1;
  const T sz = static_cast<T>(p.spacing[0]), sy = static_cast<T>(p.spacing[1]), sx = static_cast<T>(p.spacing[2]);
  const T weight = static_cast<T>(p.spatial_weight);
  std::fill(labels, labels + npix, mask_label);
  std::vector<T> distance(static_cast<std::size_t>(npix));
  std::vector<std::int64_t> count(static_cast<std::size_t>(n));
  std::vector<T> max_dist_color(static_cast<std::size_t>(n), T(1));
  for (std::int64_t it = 0; it < p.max_num_iter; ++it) {
    bool change = false;
    std::fill(distance.begin(), distance.end(), std::numeric_limits<T>::max());
    for (std::int64_t k = 0; k < n; ++k) {
      const T* seg = &centres[static_cast<std::size_t>(k * nf)];
      std::int64_t z0, z1, y0, y1, x0, x1;
      if (!slic_window(seg[0], p.step_z, D, z0, z1) || !slic_window(seg[1], p.step_y, H, y0, y1) ||
          !slic_window(seg[2], p.step_x, W, x0, x1))
        continue;
      for (std::int64_t z = z0; z < z1; ++z) {
        const T dz = slic_axis_term(seg[0], z, sz);
        for (std::int64_t y = y0; y < y1; ++y) {
          const T dy = slic_axis_term(seg[1], y, sy);
          for (std::int64_t x = x0; x < x1; ++x) {
            const std::int64_t i = (z * H + y) * W + x;
            if (mask && !mask[i]) continue;
            const T d = slic_distance(dz, dy, slic_axis_term(seg[2], x, sx), weight, image + i * C, seg, C,
                                      p.ignore_color, p.slic_zero, max_dist_color[static_cast<std::size_t>(k)]);
            if (distance[static_cast<std::size_t>(i)] > d) {
              labels[i] = k + p.start_label;
              distance[static_cast<std::size_t>(i)] = d;
              change = true;
            }
          }
        }
      }
    }
    if (!change) break;
    std::fill(count.begin(), count.end(), 0);
    std::fill(centres.begin(), centres.end(), T(0));
    for (std::int64_t i = 0; i < npix; ++i) {
      if (mask && (!mask[i] || labels[i] == mask_label)) continue;
      const std::int64_t k = labels[i] - p.start_label;
      if (k < 0) continue;  // unreached pixel (out of bounds in the .pyx; no window misses one there)
      T* seg = &centres[static_cast<std::size_t>(k * nf)];
      const std::int64_t z = i / (H * W), y = (i / W) % H, x = i % W;
      ++count[static_cast<std::size_t>(k)];
      seg[0] += static_cast<T>(z);
      seg[1] += static_cast<T>(y);
      seg[2] += static_cast<T>(x);
      for (std::int64_t c = 0; c < C; ++c) seg[3 + c] += image[i * C + c];
    }
    for (std::int64_t k = 0; k < n; ++k)  // an empty segment's centre becomes NaN (0 / 0), as in numpy
      for (std::int64_t c = 0; c < nf; ++c) centres[static_cast<std::size_t>(k * nf + c)] /= static_cast<T>(count[k]);
    if (!p.slic_zero) continue;
    for (std::int64_t i = 0; i < npix; ++i) {
      if (mask && (!mask[i] || labels[i] == mask_label)) continue;
      const std::int64_t k = labels[i] - p.start_label;
      if (k < 0) continue;
      const T* seg = &centres[static_cast<std::size_t>(k * nf)];
      T col = 0;
      for (std::int64_t c = 0; c < C; ++c) {
        const T t = image[i * C + c] - seg[3 + c];
        col += t * t;
      }
      T& m = max_dist_color[static_cast<std::size_t>(k)];
      if (m < col) m = col;
    }
  }
}

template void cpu_slic_kmeans<float>(const float*, const std::uint8_t*, std::vector<float>&, const SlicProblem&,
                                     std::int64_t*);
template void cpu_slic_kmeans<double>(const double*, const std::uint8_t*, std::vector<double>&, const SlicProblem&,
                                      std::int64_t*);

void enforce_label_connectivity(std::int64_t* labels, std::int64_t depth, std::int64_t height, std::int64_t width,
                                std::int64_t min_size, std::int64_t max_size, std::int64_t start_label) {
  const std::int64_t mask_label = start_label - 1, npix = depth * height * width;
  std::vector<std::int64_t> out(static_cast<std::size_t>(npix), mask_label);
  // The .pyx preallocates max_size entries and stops growing a component there.
  std::vector<std::int64_t> queue(static_cast<std::size_t>(std::max<std::int64_t>(max_size, 1)));
  constexpr int dz[6] = {0, 0, 0, 0, 1, -1}, dy[6] = {0, 0, 1, -1, 0, 0}, dx[6] = {1, -1, 0, 0, 0, 0};
  std::int64_t next = start_label;
  for (std::int64_t z = 0; z < depth; ++z)
    for (std::int64_t y = 0; y < height; ++y)
      for (std::int64_t x = 0; x < width; ++x) {
        const std::int64_t i0 = (z * height + y) * width + x;
        if (labels[i0] == mask_label || out[i0] > mask_label) continue;
        std::int64_t adjacent = next;
        const std::int64_t label = labels[i0];
        out[i0] = next;
        std::int64_t size = 1, visited = 0;
        queue[0] = i0;
        while (visited < size && size < max_size) {
          const std::int64_t q = queue[visited];
          const std::int64_t qz = q / (height * width), qy = (q / width) % height, qx = q % width;
          for (int e = 0; e < 6; ++e) {
            const std::int64_t zz = qz + dz[e], yy = qy + dy[e], xx = qx + dx[e];
            if (xx < 0 || xx >= width || yy < 0 || yy >= height || zz < 0 || zz >= depth) continue;
            const std::int64_t j = (zz * height + yy) * width + xx;
            if (labels[j] == label && out[j] == mask_label) {
              out[j] = next;
              queue[size++] = j;
              if (size >= max_size) break;
            } else if (out[j] > mask_label && out[j] != next) {
              adjacent = out[j];
            }
          }
          ++visited;
        }
        if (size < min_size)
          for (std::int64_t k = 0; k < size; ++k) out[queue[k]] = adjacent;
        else
          ++next;
      }
  std::copy(out.begin(), out.end(), labels);
}

}  // namespace cuskimage::segmentation::detail
