// skimage.morphology.skeletonize (Zhang, Lee) and thin. The CPU backend follows scikit-image's loops
// (zero-padded copies, two parallel sub-iterations; Lee's candidate collection and sequential
// re-check); the per-pixel rules live in skeleton_ops.hpp and are shared with the CUDA kernels
// (kernels/morphology/skeletonize.cu, skeleton_lee.cu).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/skeleton_ops.hpp"

namespace cuskimage::morphology {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::fail;

/// The image as a contiguous uint8 0/1 array on its device (scikit-image's astype(bool)).
Array binary_u8(const Array& image, const Stream& stream) {
  const Array b = image.dtype() == DType::bool_ ? image.share() : image.astype(DType::bool_, stream);
  return b.astype(DType::uint8, stream).contiguous(stream);
}

/// Zhang (thin == false) or Guo-Hall thinning in place on a contiguous host uint8 0/1 image.
void cpu_zhang_thin(Array& img, bool thin, std::int64_t max_iter) {
  const std::int64_t R = img.shape(0), C = img.shape(1), PC = C + 2;
  // Zero-padded working copies: `cur` is the state at the start of a sub-iteration, `next` the result.
  std::vector<std::uint8_t> cur(static_cast<std::size_t>((R + 2) * PC), 0);
  auto* p = static_cast<std::uint8_t*>(img.data());
  for (std::int64_t r = 0; r < R; ++r) std::memcpy(&cur[(r + 1) * PC + 1], p + r * C, static_cast<std::size_t>(C));
  std::vector<std::uint8_t> next = cur;
  std::int64_t iter = 0;
  for (bool changed = true; changed && (max_iter == 0 || iter < max_iter); ++iter) {
    changed = false;
    for (int pass = 0; pass < 2; ++pass) {
      bool any = false;
#pragma omp parallel for reduction(|| : any) schedule(static)
      for (std::int64_t r = 1; r <= R; ++r) {
        for (std::int64_t c = 1; c <= C; ++c) {
          const std::int64_t i = r * PC + c;
          if (!cur[i]) continue;
          auto v = [&](int dr, int dc) -> unsigned { return cur[i + dr * PC + dc]; };
          bool del;
          if (thin) {
            const unsigned code = detail::thin_code(v);
            del = pass == 0 ? detail::kThinLuts.g123[code] : detail::kThinLuts.g123p[code];
          } else {
            del = detail::zhang_removes(detail::kZhangLut[detail::zhang_code(v)], pass);
          }
          if (del) {
            next[i] = 0;
            any = true;
          }
        }
      }
      if (any) {
        changed = true;
        cur = next;
      }
    }
  }
  for (std::int64_t r = 0; r < R; ++r) std::memcpy(p + r * C, &cur[(r + 1) * PC + 1], static_cast<std::size_t>(C));
}

/// Lee's thinning in place on a contiguous host uint8 0/1 volume (P, R, C), as scikit-image's
/// _compute_thin_image on the zero-padded volume.
void cpu_lee(Array& vol) {
  const std::int64_t P = vol.shape(0), R = vol.shape(1), C = vol.shape(2);
  const std::int64_t PR = R + 2, PC = C + 2, plane = PR * PC;
  std::vector<std::uint8_t> img(static_cast<std::size_t>((P + 2) * plane), 0);
  auto* src = static_cast<std::uint8_t*>(vol.data());
  for (std::int64_t p = 0; p < P; ++p)
    for (std::int64_t r = 0; r < R; ++r)
      std::memcpy(&img[(p + 1) * plane + (r + 1) * PC + 1], src + (p * R + r) * C, static_cast<std::size_t>(C));
  const std::int8_t* euler = detail::kEulerLut.data();
  const std::uint32_t* adj = detail::kNbAdjacency.adj.data();
  auto neighbourhood = [&](std::int64_t i) {
    std::uint32_t nb = 0;
    for (int dp = -1; dp <= 1; ++dp)
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc)
          if (img[i + dp * plane + dr * PC + dc]) nb |= 1u << detail::nb_bit(dp, dr, dc);
    return nb;
  };
  // Border directions in scikit-image's order (ImageJ's, borders 4, 3, 2, 1, 5, 6): the neighbour
  // that must be background is at r-1, r+1, c+1, c-1, p+1, p-1. A single plane uses the first four.
  const std::int64_t dirs[6] = {-PC, PC, 1, -1, plane, -plane};
  const int num = P == 1 ? 4 : 6;
  std::vector<std::int64_t> cand;
  for (int unchanged = 0; unchanged < num;) {
    unchanged = 0;
    for (int d = 0; d < num; ++d) {
      cand.clear();
      for (std::int64_t p = 1; p <= P; ++p)
        for (std::int64_t r = 1; r <= R; ++r)
          for (std::int64_t c = 1; c <= C; ++c) {
            const std::int64_t i = p * plane + r * PC + c;
            if (img[i] != 1 || img[i + dirs[d]] != 0) continue;
            if (detail::lee_deletable(neighbourhood(i), euler, adj)) cand.push_back(i);
          }
      bool no_change = true;
      for (const std::int64_t i : cand)
        if (detail::lee_simple(neighbourhood(i), adj)) {  // the re-check tests simplicity only
          img[i] = 0;
          no_change = false;
        }
      if (no_change) ++unchanged;
    }
  }
  for (std::int64_t p = 0; p < P; ++p)
    for (std::int64_t r = 0; r < R; ++r)
      std::memcpy(src + (p * R + r) * C, &img[(p + 1) * plane + (r + 1) * PC + 1], static_cast<std::size_t>(C));
}

Array zhang_thin(const Array& image, bool thin, std::int64_t max_iter, const Stream& stream) {
  Array u = binary_u8(image, stream);
  if (u.is_contiguous() && u.data() == image.data()) u = u.copy(stream);  // never thin the caller's buffer
  if (u.size() > 0)
    cuskimage::detail::on_backend(
        u, stream, [&] { cpu_zhang_thin(u, thin, max_iter); },
        [&](const Stream& s) { detail::cuda_zhang_thin(u, thin, max_iter, s); });
  return u.astype(DType::bool_, stream);
}

}  // namespace

SkeletonMethod skeleton_method_from_name(std::string_view name) {
  if (name == "zhang") return SkeletonMethod::zhang;
  if (name == "lee") return SkeletonMethod::lee;
  if (name == "None" || name == "none") return SkeletonMethod::none;
  fail("morphology.skeletonize", "argument 'method' must be \"lee\" or \"zhang\", got '", name, "'");
}

Array skeletonize(const Array& image, const SkeletonizeOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "morphology.skeletonize";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(opts.method == SkeletonMethod::none || opts.method == SkeletonMethod::zhang ||
             opts.method == SkeletonMethod::lee,
         fn, "method", "must be \"lee\" or \"zhang\"");
  expect(image.ndim() == 2 || image.ndim() == 3, fn, "image", "must be a 2D or 3D image, got ", image.ndim(), "D");
  expect(!(image.ndim() == 3 && opts.method == SkeletonMethod::zhang), fn, "method",
         "\"zhang\" only works for 2D images, got a 3D image");
  const bool lee = opts.method == SkeletonMethod::lee || image.ndim() == 3;
  if (!lee) return zhang_thin(image, false, 0, stream);
  Array u = binary_u8(image, stream);
  if (u.data() == image.data()) u = u.copy(stream);
  Array vol = image.ndim() == 2 ? u.reshape({1, image.shape(0), image.shape(1)}) : u.share();
  if (vol.size() > 0)
    cuskimage::detail::on_backend(
        vol, stream, [&] { cpu_lee(vol); }, [&](const Stream& s) { detail::cuda_lee(vol, s); });
  return u.astype(DType::bool_, stream);
}

Array thin(const Array& image, const ThinOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "morphology.thin";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.size() > 0, fn, "image", "cannot be an empty array");
  expect(image.ndim() == 2, fn, "image", "must be a 2-dimensional array, got ", image.ndim(), "D");
  expect(opts.max_num_iter >= 0, fn, "max_num_iter", "must be >= 0 (0: no limit), got ", opts.max_num_iter);
  return zhang_thin(image, true, opts.max_num_iter, stream);
}

}  // namespace cuskimage::morphology
