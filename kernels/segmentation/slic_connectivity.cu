// CUDA _enforce_label_connectivity_cython (segmentation.slic's last step), equal to the sequential
// pass of src/segmentation/slic_cpu.cpp. The .pyx visits segments (6-connected runs of one label)
// in raster order of their first pixel, breadth-first; a segment smaller than min_size takes the
// label of the LAST already-visited neighbour its search met (the out-of-segment neighbour test
// runs for every dequeued pixel, in the order +x, -x, +y, -y, +z, -z), unless that label equals
// the one the segment would get itself; otherwise it gets the next label.
//
// When no segment reaches max_size, no search is cut short, so each visited segment is a whole
// connected component and "already visited" means "its component's first pixel comes earlier".
// Then:
//  1. components of equal labels by union-find (kernels/core/union_find.cuh); the root is the
//     component's smallest raster index, i.e. its first pixel; sizes by warp-aggregated atomics;
//  2. the roots in raster order (CUB select) rank the components as the .pyx meets them;
//  3. one thread per small component repeats its breadth-first search (< min_size pixels, the
//     order decides which neighbour is met last) and keeps the last K distinct earlier components
//     it met, most recent last;
//  4. the host walks the components in order (a few thousand entries, not pixels): a large one
//     takes the next label, a small one the label of the most recent listed neighbour whose label
//     differs from the next label (that test needs the labels given before, hence sequential);
//  5. a gather writes each pixel's label.
// If some component reaches max_size (the .pyx's cut-off search then depends on order), if a
// small component's K listed neighbours all fail the test while it met more, or if the image has
// more than 2^30 pixels, the labels go to the host and the sequential pass runs there.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cstdint>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "kernels/core/union_find.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/slic.hpp"

namespace cuskimage::segmentation::detail {
namespace {

using cuskimage::detail::grid_blocks;
using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;
constexpr int kThreads = 256;
constexpr int kList = 8;  // earlier neighbours kept per small component

struct Geom {
  std::int32_t d, h, w;
};

__global__ void init_kernel(const std::int64_t* __restrict__ lab, std::int32_t* __restrict__ parent,
                            std::int32_t* __restrict__ size, std::int64_t n, std::int64_t mask_label) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    parent[i] = lab[i] == mask_label ? -1 : static_cast<std::int32_t>(i);
    size[i] = 0;
  }
}

/// Unions each pixel with its backward face neighbours of the same label.
__global__ void merge_kernel(const std::int64_t* __restrict__ lab, std::int32_t* parent, Geom g) {
  const std::int32_t n = g.d * g.h * g.w, plane = g.h * g.w;
  const std::int32_t stride = static_cast<std::int32_t>(gridDim.x * blockDim.x);
  for (std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t v = lab[i];
    if (parent[i] < 0) continue;
    const std::int32_t x = i % g.w, y = (i / g.w) % g.h, z = i / plane;
    if (x > 0 && lab[i - 1] == v) cuskimage::detail::ccl_union<std::int32_t>(parent, i, i - 1);
    if (y > 0 && lab[i - g.w] == v) cuskimage::detail::ccl_union<std::int32_t>(parent, i, i - g.w);
    if (z > 0 && lab[i - plane] == v) cuskimage::detail::ccl_union<std::int32_t>(parent, i, i - plane);
  }
}

/// parent[i] = root; size[root] += 1, one atomic per run of equal roots in a warp.
__global__ void flatten_count_kernel(std::int32_t* parent, std::int32_t* __restrict__ size, std::int32_t n) {
  const std::int32_t stride = static_cast<std::int32_t>(gridDim.x * blockDim.x);
  for (std::int32_t base = blockIdx.x * blockDim.x; base < n; base += stride) {  // warp-uniform bound
    const std::int32_t i = base + threadIdx.x;
    std::int32_t r = -1;
    if (i < n && parent[i] >= 0) {
      r = cuskimage::detail::ccl_find(parent, i);
      parent[i] = r;
    }
    const unsigned same = __match_any_sync(0xffffffffu, r);
    if (r >= 0 && (threadIdx.x & 31) == __ffs(same) - 1) atomicAdd(&size[r], __popc(same));
  }
}

struct IsRoot {
  const std::int32_t* parent;
  __device__ bool operator()(std::int32_t i) const { return parent[i] == i; }
};

/// comp_size[r] = size of the r-th root; the root's entry of size_rank becomes r; queue lengths for
/// the small ones; flag set when one reaches max_size.
__global__ void rank_kernel(const std::int32_t* __restrict__ roots, std::int32_t nroots, std::int32_t* size_rank,
                            std::int32_t* __restrict__ comp_size, std::int32_t* __restrict__ small_len,
                            std::int64_t min_size, std::int64_t max_size, int* __restrict__ too_big) {
  const std::int32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nroots) return;
  const std::int32_t root = roots[r], s = size_rank[root];
  size_rank[root] = r;
  comp_size[r] = s;
  small_len[r] = s < min_size ? s : 0;
  if (s >= max_size) *too_big = 1;
}

/// One thread per small component: its breadth-first search as the .pyx runs it, keeping the last
/// kList distinct earlier components met (ranks, most recent last); count = distinct ones met.
__global__ void search_kernel(const std::int32_t* __restrict__ roots, const std::int32_t* __restrict__ comp_size,
                              const std::int32_t* __restrict__ offset, std::int32_t nroots,
                              const std::int32_t* __restrict__ parent, const std::int32_t* __restrict__ rank_of,
                              std::uint8_t* __restrict__ seen, std::int32_t* __restrict__ queue,
                              std::int32_t* __restrict__ list, std::int32_t* __restrict__ count, Geom g,
                              std::int64_t min_size) {
  const std::int32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nroots) return;
  count[r] = 0;
  if (comp_size[r] >= min_size) return;
  const std::int32_t root = roots[r], plane = g.h * g.w;
  std::int32_t* q = queue + offset[r];
  std::int32_t L[kList];  // thread-local until the end
  std::int32_t len = 0, met = 0, n = 1;
  q[0] = root;
  seen[root] = 1;
  for (std::int32_t v = 0; v < n; ++v) {
    const std::int32_t p = q[v], x = p % g.w, y = (p / g.w) % g.h, z = p / plane;
    const std::int32_t nb[6] = {x + 1 < g.w ? p + 1 : -1, x > 0 ? p - 1 : -1,
                                y + 1 < g.h ? p + g.w : -1, y > 0 ? p - g.w : -1,
                                z + 1 < g.d ? p + plane : -1, z > 0 ? p - plane : -1};
    for (int e = 0; e < 6; ++e) {
      const std::int32_t j = nb[e];
      if (j < 0) continue;
      const std::int32_t pj = parent[j];
      if (pj == root) {
        if (!seen[j]) {
          seen[j] = 1;
          q[n++] = j;
        }
      } else if (pj >= 0 && pj < root) {  // visited before this segment by the .pyx
        const std::int32_t b = rank_of[pj];
        int k = 0;
        while (k < len && L[k] != b) ++k;
        if (k == len) {
          ++met;
          if (len == kList) k = 0;  // drop the oldest
          else ++len;
        }
        for (; k + 1 < len; ++k) L[k] = L[k + 1];
        L[len - 1] = b;
      }
    }
  }
  for (int k = 0; k < len; ++k) list[std::int64_t(r) * kList + k] = L[k];
  count[r] = met;
}

__global__ void gather_kernel(const std::int32_t* __restrict__ parent, const std::int32_t* __restrict__ rank_of,
                              const std::int64_t* __restrict__ final_label, std::int64_t* __restrict__ out,
                              std::int32_t n, std::int64_t mask_label) {
  const std::int32_t stride = static_cast<std::int32_t>(gridDim.x * blockDim.x);
  for (std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int32_t p = parent[i];
    out[i] = p < 0 ? mask_label : final_label[rank_of[p]];
  }
}

void host_fallback(Array& labels, std::int64_t depth, std::int64_t height, std::int64_t width, std::int64_t min_size,
                   std::int64_t max_size, std::int64_t start_label, const Stream& stream) {
  Array h = labels.to(Device::cpu(), stream);
  enforce_label_connectivity(h.data<std::int64_t>(), depth, height, width, min_size, max_size, start_label);
  labels.copy_from(h, stream);
}

}  // namespace

void cuda_enforce_label_connectivity(Array& labels, std::int64_t depth, std::int64_t height, std::int64_t width,
                                     std::int64_t min_size, std::int64_t max_size, std::int64_t start_label,
                                     const Stream& stream) {
  const std::int64_t npix = depth * height * width, mask_label = start_label - 1;
  if (npix == 0) return;
  if (npix > (std::int64_t(1) << 30) || max_size <= 1)  // int32 indices with room for grid strides
    return host_fallback(labels, depth, height, width, min_size, max_size, start_label, stream);
  const Device dev = labels.device();
  const cudaStream_t st = stream.handle();
  const auto n = static_cast<std::int32_t>(npix);
  const Geom g{static_cast<std::int32_t>(depth), static_cast<std::int32_t>(height), static_cast<std::int32_t>(width)};
  auto ints = [&](std::int64_t k) { return Array::empty({std::max<std::int64_t>(k, 1)}, DType::int32, dev, stream); };
  Array parent = ints(n), size_rank = ints(n), roots = ints(n), nroots_d = ints(1);
  std::int64_t* lab = ptr<std::int64_t>(labels);
  const unsigned blocks = grid_blocks(n, kThreads, 16384);
  init_kernel<<<blocks, kThreads, 0, st>>>(lab, ptr<std::int32_t>(parent), ptr<std::int32_t>(size_rank), n, mask_label);
  merge_kernel<<<blocks, kThreads, 0, st>>>(lab, ptr<std::int32_t>(parent), g);
  flatten_count_kernel<<<blocks, kThreads, 0, st>>>(ptr<std::int32_t>(parent), ptr<std::int32_t>(size_rank), n);
  CUSK_CUDA_CHECK_LAUNCH();
  // 2. the roots in raster order.
  const thrust::counting_iterator<std::int32_t> idx(0);
  const IsRoot is_root{cptr<std::int32_t>(parent)};
  std::size_t tmp_bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, tmp_bytes, idx, ptr<std::int32_t>(roots),
                                        ptr<std::int32_t>(nroots_d), n, is_root, st));
  Array tmp = scratch(tmp_bytes, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceSelect::If(tmp.data(), tmp_bytes, idx, ptr<std::int32_t>(roots),
                                        ptr<std::int32_t>(nroots_d), n, is_root, st));
  const std::int32_t nroots = nroots_d.to(Device::cpu(), stream).to_vector<std::int32_t>()[0];
  if (nroots == 0) return;  // every pixel masked: nothing changes
  // 3. sizes, ranks, and the small components' searches.
  Array comp_size = ints(nroots), small_len = ints(nroots), offset = ints(nroots), too_big = ints(1);
  Array count = ints(nroots), list = ints(std::int64_t(nroots) * kList), queue = ints(n);
  Array seen = Array::zeros({npix}, DType::uint8, dev, stream);
  CUSK_CUDA_CHECK(cudaMemsetAsync(too_big.data(), 0, sizeof(int), st));
  const unsigned rb = static_cast<unsigned>((nroots + 127) / 128);
  rank_kernel<<<rb, 128, 0, st>>>(cptr<std::int32_t>(roots), nroots, ptr<std::int32_t>(size_rank),
                                  ptr<std::int32_t>(comp_size), ptr<std::int32_t>(small_len), min_size, max_size,
                                  ptr<int>(too_big));
  CUSK_CUDA_CHECK_LAUNCH();
  tmp_bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, cptr<std::int32_t>(small_len),
                                                ptr<std::int32_t>(offset), nroots, st));
  Array tmp2 = scratch(tmp_bytes, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp2.data(), tmp_bytes, cptr<std::int32_t>(small_len),
                                                ptr<std::int32_t>(offset), nroots, st));
  search_kernel<<<rb, 128, 0, st>>>(cptr<std::int32_t>(roots), cptr<std::int32_t>(comp_size),
                                    cptr<std::int32_t>(offset), nroots, cptr<std::int32_t>(parent),
                                    cptr<std::int32_t>(size_rank), ptr<std::uint8_t>(seen), ptr<std::int32_t>(queue),
                                    ptr<std::int32_t>(list), ptr<std::int32_t>(count), g, min_size);
  CUSK_CUDA_CHECK_LAUNCH();
  if (too_big.to(Device::cpu(), stream).to_vector<int>()[0] != 0)
    return host_fallback(labels, depth, height, width, min_size, max_size, start_label, stream);
  // 4. the labels in the .pyx's order, per component.
  const std::vector<std::int32_t> hsize = comp_size.to(Device::cpu(), stream).to_vector<std::int32_t>();
  const std::vector<std::int32_t> hcount = count.to(Device::cpu(), stream).to_vector<std::int32_t>();
  const std::vector<std::int32_t> hlist = list.to(Device::cpu(), stream).to_vector<std::int32_t>();
  std::vector<std::int64_t> final_label(static_cast<std::size_t>(nroots));
  std::int64_t next = start_label;
  for (std::int32_t r = 0; r < nroots; ++r) {
    if (hsize[r] >= min_size) {
      final_label[r] = next++;
      continue;
    }
    const int len = std::min(hcount[r], kList);
    int k = len - 1;
    while (k >= 0 && final_label[hlist[std::size_t(r) * kList + k]] == next) --k;
    if (k < 0 && hcount[r] > kList)  // every kept neighbour fails the test and older ones are lost
      return host_fallback(labels, depth, height, width, min_size, max_size, start_label, stream);
    final_label[r] = k < 0 ? next : final_label[hlist[std::size_t(r) * kList + k]];
  }
  // 5. per pixel.
  const Array fin = cuskimage::detail::buf::upload(final_label, dev, stream);
  gather_kernel<<<blocks, kThreads, 0, st>>>(cptr<std::int32_t>(parent), cptr<std::int32_t>(size_rank),
                                             cptr<std::int64_t>(fin), lab, n, mask_label);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::segmentation::detail
