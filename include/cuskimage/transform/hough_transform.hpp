// skimage.transform.hough_transform (scikit-image 0.26): hough_line, hough_line_peaks, hough_circle,
// hough_circle_peaks, probabilistic_hough_line, hough_ellipse.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::transform {

/// np.linspace(-pi / 2, pi / 2, 180, endpoint=False), numpy's values: the default angles.
std::vector<double> hough_default_theta();

struct HoughLineOptions {
  /// Angles in radians; empty = hough_default_theta().
  std::vector<double> theta = {};
};
CUSK_OPTIONS(HoughLineOptions, (theta, "angles in radians (default: 180 from -pi/2 to pi/2, end excluded)"))

struct HoughLineResult {
  Array hspace;                  ///< uint64 (2 * ceil(hypot(rows, cols)) + 1, angles), on the image's device
  std::vector<double> angles;    ///< the angles used
  std::vector<double> distances; ///< the distance of each hspace row
};

/// skimage.transform.hough_line: every nonzero pixel of the 2-D image votes, per angle, for the
/// distance bin round(x cos(theta) + y sin(theta)) (round half away from zero). Asynchronous.
HoughLineResult hough_line(const Array& image, const HoughLineOptions& opts = {}, const Stream& stream = {});

struct HoughLinePeaksOptions {
  std::int64_t min_distance = 9;
  std::int64_t min_angle = 10;
  /// Minimum peak intensity; unset = 0.5 * max(hspace).
  std::optional<double> threshold = std::nullopt;
  /// Maximum number of peaks; unset = all.
  std::optional<std::int64_t> num_peaks = std::nullopt;
};
CUSK_OPTIONS(HoughLinePeaksOptions,
             (min_distance, "minimum distance between peaks along the distance axis"),
             (min_angle, "minimum distance between peaks along the angle axis (wraps around)"),
             (threshold, "minimum peak intensity (default: half the maximum)"),
             (num_peaks, "maximum number of peaks (default: all)"))

struct HoughLinePeaksResult {
  std::vector<double> accum;      ///< peak intensities (hspace values)
  std::vector<double> angles;     ///< their angles
  std::vector<double> distances;  ///< their distances
};

/// skimage.transform.hough_line_peaks: scikit-image's non-maximum suppression (regions above the
/// threshold, strongest first, neighbourhoods suppressed with the angle axis wrapping). Runs on the
/// host; synchronises when hspace is on a device. Peaks of equal intensity keep scikit-image's
/// order where numpy's argsort is stable (up to 16 peaks when num_peaks truncates).
HoughLinePeaksResult hough_line_peaks(const Array& hspace, const std::vector<double>& angles,
                                      const std::vector<double>& distances, const HoughLinePeaksOptions& opts = {},
                                      const Stream& stream = {});

struct HoughCircleOptions {
  /// Divide each vote by the number of pixels of the radius' circle.
  bool normalize = true;
  /// Pad the accumulator by the largest radius on every side (centres outside the image).
  bool full_output = false;
};
CUSK_OPTIONS(HoughCircleOptions,
             (normalize, "divide each vote by the number of pixels of the circle"),
             (full_output, "pad the accumulator by the largest radius (centres outside the image)"))

/// skimage.transform.hough_circle: float64 (radii, rows + 2R, cols + 2R) accumulator (R = the largest
/// radius with full_output, else 0); each nonzero pixel votes along its Bresenham circle
/// (skimage.draw.circle_perimeter, duplicates included). Asynchronous.
Array hough_circle(const Array& image, const std::vector<std::int64_t>& radius, const HoughCircleOptions& opts = {},
                   const Stream& stream = {});

struct HoughCirclePeaksOptions {
  std::int64_t min_xdistance = 1;
  std::int64_t min_ydistance = 1;
  /// Minimum peak intensity per radius; unset = half each accumulator's maximum.
  std::optional<double> threshold = std::nullopt;
  /// Maximum number of peaks per radius; unset = all.
  std::optional<std::int64_t> num_peaks = std::nullopt;
  /// Maximum number of peaks in all; unset = all.
  std::optional<std::int64_t> total_num_peaks = std::nullopt;
  /// Rank the peaks by intensity / radius.
  bool normalize = false;
};
CUSK_OPTIONS(HoughCirclePeaksOptions,
             (min_xdistance, "minimum distance between centres along x (columns)"),
             (min_ydistance, "minimum distance between centres along y (rows)"),
             (threshold, "minimum peak intensity (default: half each accumulator's maximum)"),
             (num_peaks, "maximum number of peaks per radius (default: all)"),
             (total_num_peaks, "maximum number of peaks in all (default: all)"),
             (normalize, "rank the peaks by intensity divided by the radius"))

struct HoughCirclePeaksResult {
  std::vector<double> accum;
  std::vector<std::int64_t> cx;  ///< centre columns
  std::vector<std::int64_t> cy;  ///< centre rows
  std::vector<std::int64_t> radii;
};

/// skimage.transform.hough_circle_peaks over the accumulators of hough_circle (one per radius).
/// Host; synchronises when hspaces is on a device.
HoughCirclePeaksResult hough_circle_peaks(const Array& hspaces, const std::vector<std::int64_t>& radii,
                                          const HoughCirclePeaksOptions& opts = {}, const Stream& stream = {});

struct ProbabilisticHoughLineOptions {
  std::int64_t threshold = 10;
  std::int64_t line_length = 50;
  std::int64_t line_gap = 10;
  /// Angles in radians; empty = hough_default_theta().
  std::vector<double> theta = {};
  /// Seed of numpy's default_rng that orders the pixels; unset = a fresh random seed.
  std::optional<std::uint64_t> rng = std::nullopt;
};
CUSK_OPTIONS(ProbabilisticHoughLineOptions,
             (threshold, "accumulator threshold"),
             (line_length, "minimum accepted line length"),
             (line_gap, "maximum gap between pixels of one line"),
             (theta, "angles in radians (default: 180 from -pi/2 to pi/2, end excluded)"),
             (rng, "seed of numpy's default_rng (default: random)"))

/// A line segment ((x0, y0), (x1, y1)) in (column, row) coordinates.
using LineSegment = std::array<std::array<std::int64_t, 2>, 2>;

/// skimage.transform.probabilistic_hough_line: the progressive probabilistic Hough transform, the
/// pixels visited in the order numpy's default_rng(rng).shuffle gives (equal to scikit-image for the
/// same seed). Sequential by nature: runs on the host (a device image is copied; synchronises).
std::vector<LineSegment> probabilistic_hough_line(const Array& image, const ProbabilisticHoughLineOptions& opts = {},
                                                  const Stream& stream = {});

struct HoughEllipseOptions {
  std::int64_t threshold = 4;
  double accuracy = 1.0;
  std::int64_t min_size = 4;
  /// Maximal minor axis; unset = half the smaller image side (rounded).
  std::optional<double> max_size = std::nullopt;
};
CUSK_OPTIONS(HoughEllipseOptions,
             (threshold, "accumulator threshold"),
             (accuracy, "bin size on the minor axis"),
             (min_size, "minimal major axis length"),
             (max_size, "maximal minor axis length (default: half the smaller side)"))

struct HoughEllipse {
  std::int64_t accumulator;
  double yc, xc, a, b, orientation;
};

/// skimage.transform.hough_ellipse (Xie and Ji): every pixel pair as a major axis, the minor axis
/// by histogram. O(pixels^3); runs on the host (a device image is copied; synchronises).
std::vector<HoughEllipse> hough_ellipse(const Array& image, const HoughEllipseOptions& opts = {},
                                        const Stream& stream = {});

}  // namespace cuskimage::transform
