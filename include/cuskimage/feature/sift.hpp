// skimage.feature.sift (scikit-image 0.26): SIFT keypoints and descriptors (Otero and Delbracio's
// anatomy of SIFT, as scikit-image implements it).
//
// scikit-image's steps, in its order: img_as_float; the number of octaves lowered to
// int(log2(min(shape) * upsampling / 12) + 1); rescale by `upsampling` (order 1) and Gaussian blur
// to sigma_min; per octave n_scales + 3 Gaussian layers (filters::gaussian, mode reflect),
// the next octave starting from layer n_scales subsampled by 2; differences of Gaussians; the
// strict 26-neighbour extrema above 0.8 * c_dog' (c_dog scaled for n_scales) in C order
// (row, col, scale) per octave; up to five quadratic refinements per extremum; the contrast, edge
// and border filters; then per keypoint the 36-bin (n_bins) orientation histogram, smoothed six
// times, whose peaks above c_max of its maximum give the orientations (the first one the
// keypoint's own, the others appended after every keypoint as new keypoints, in order); then
// the n_hist x n_hist x n_ori descriptor, clipped at 0.2 of its norm and quantised to uint8.
// Differences from scikit-image: float32 images are processed in float64 (scikit-image works
// in float32 there; keypoints can differ where a float32 rounding decides a threshold); the
// descriptor norm is a sequential sum where NumPy calls BLAS (a descriptor entry can differ by 1
// where 512 * h / norm falls within an ulp of an integer). No keypoint raises Error, as
// scikit-image's RuntimeError.
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

struct SiftOptions {
  std::int64_t upsampling = 2;
  std::int64_t n_octaves = 8;
  std::int64_t n_scales = 3;
  double sigma_min = 1.6;
  double sigma_in = 0.5;
  double c_dog = 0.04 / 3;
  double c_edge = 10;
  std::int64_t n_bins = 36;
  double lambda_ori = 1.5;
  double c_max = 0.8;
  double lambda_descr = 6;
  std::int64_t n_hist = 4;
  std::int64_t n_ori = 8;
};
CUSK_OPTIONS(SiftOptions, (upsampling, "prior upscaling of the image: 1, 2 or 4"),
             (n_octaves, "maximum number of octaves (lowered for small images)"),
             (n_scales, "number of scales per octave"), (sigma_min, "blur level of the seed image"),
             (sigma_in, "assumed blur level of the input image"),
             (c_dog, "threshold of the difference of Gaussians (for n_scales = 3)"),
             (c_edge, "threshold of the edge ratio of the Hessian"),
             (n_bins, "number of bins of the orientation histogram (>= 6)"),
             (lambda_ori, "width of the orientation window, in keypoint sigmas"),
             (c_max, "fraction of the histogram maximum that gives further orientations"),
             (lambda_descr, "width of the descriptor window, in keypoint sigmas"),
             (n_hist, "number of spatial histograms per axis of the descriptor"),
             (n_ori, "number of orientation bins per descriptor histogram"))

/// skimage.feature.SIFT. detect sets keypoints (N, 2) int64 (the rounded positions), positions
/// (N, 2) float64 (row, col), sigmas, orientations (N) float64, scales, octaves (N) int64;
/// extract (after detect) and detect_and_extract set descriptors (N, n_hist^2 * n_ori) uint8.
/// All on the image's device. The image is 2-D. Calls synchronise `stream` (keypoint counts).
/// As scikit-image's, an image that lowers the number of octaves lowers it for later calls too.
class SIFT {
 public:
  explicit SIFT(SiftOptions opts = {});
  void detect(const Array& image, const Stream& stream = {});
  void extract(const Array& image, const Stream& stream = {});
  void detect_and_extract(const Array& image, const Stream& stream = {});
  const SiftOptions& options() const { return opts_; }

  Array keypoints, positions, sigmas, scales, orientations, octaves, descriptors;

 private:
  void run(const Array& image, bool detect, bool extract, const Stream& stream);
  SiftOptions opts_;
};

}  // namespace cuskimage::feature
