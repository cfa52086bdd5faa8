// Command-line transforms shared by transform.* commands (warp, matrix_transform, ...): a
// projective-family transform from `--matrix a,b,c,...` (row-major 3x3, 4x4, 2x3 or 3x4; the last
// two get the affine row appended) or from `--scale/--rotation/--shear/--translation`
// (TransformParams), with `--transform affine|euclidean|similarity|projective` choosing the class:
//
//   reg.add(with_transform_params(Command("transform.warp", "...").input("image", "..."))
//               .options<transform::WarpOptions>()
//               .handler([](Invocation& inv) -> Result {
//                 auto tf = transform_from(inv);  // std::shared_ptr<transform::GeometricTransform>
//                 ...
//               }));
//
// Point lists (read_points) come from .npy (or any file io::imread reads) or from .csv/.txt text:
// one point per line, values separated by commas or blanks, '#' comments and a non-numeric header
// line skipped.
#pragma once

#include <cctype>
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/transform/geometric.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

/// The command-line-only part of a transform: its class and an explicit matrix.
struct TransformArgs {
  /// affine, euclidean, similarity or projective; unset: affine, or projective for a --matrix whose
  /// last row is not (0, ..., 0, 1), or similarity for 3-D parameters without shear.
  std::optional<std::string> transform = std::nullopt;
  /// Row-major matrix entries: 9 (3x3), 16 (4x4), 6 (2x3) or 12 (3x4).
  std::optional<std::vector<double>> matrix = std::nullopt;
};
CUSK_OPTIONS(TransformArgs,
             (transform, "transform class: affine, euclidean, similarity or projective"),
             (matrix, "row-major homogeneous matrix: 3x3, 4x4, 2x3 or 3x4 values"))

/// Declares --transform, --matrix and --scale/--rotation/--shear/--translation/--dimensionality.
inline Command with_transform_params(Command cmd) {
  cmd.options<TransformArgs>()
      .choices("transform", {"affine", "euclidean", "similarity", "projective"})
      .options<transform::TransformParams>();
  return cmd;
}

/// The square homogeneous matrix of --matrix's values (UsageError for another count).
inline transform::Matrix matrix_from_values(const std::vector<double>& v) {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  switch (v.size()) {
    case 9: rows = cols = 3; break;
    case 16: rows = cols = 4; break;
    case 6: rows = 2, cols = 3; break;
    case 12: rows = 3, cols = 4; break;
    default:
      throw UsageError("--matrix: expected 9 (3x3), 16 (4x4), 6 (2x3) or 12 (3x4) values, got " +
                       std::to_string(v.size()));
  }
  transform::Matrix m(cols, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) m(r, c) = v[static_cast<std::size_t>(r * cols + c)];
  if (rows < cols) m(cols - 1, cols - 1) = 1.0;
  return m;
}

/// The transform --transform/--matrix/--scale/... describe (the identity of the class when none).
inline std::shared_ptr<transform::GeometricTransform> transform_from(Invocation& inv) {
  namespace tr = transform;
  const auto args = inv.options<TransformArgs>();
  const auto p = inv.options<tr::TransformParams>();
  const bool implicit = p.scale || p.rotation || p.shear || p.translation;
  if (args.matrix && implicit)
    throw UsageError(inv.name() + ": Do not specify any implicit parameters when matrix is specified.");
  std::string kind = args.transform.value_or("");
  if (args.matrix) {
    tr::Matrix m = matrix_from_values(*args.matrix);
    if (kind.empty()) {
      bool affine_row = m(m.rows - 1, m.cols - 1) == 1.0;
      for (std::int64_t c = 0; c + 1 < m.cols; ++c) affine_row = affine_row && m(m.rows - 1, c) == 0.0;
      kind = affine_row ? "affine" : "projective";
    }
    if (kind == "euclidean") return std::make_shared<tr::EuclideanTransform>(std::move(m), p.dimensionality);
    if (kind == "similarity") return std::make_shared<tr::SimilarityTransform>(std::move(m), p.dimensionality);
    if (kind == "affine") return std::make_shared<tr::AffineTransform>(std::move(m), p.dimensionality);
    return std::make_shared<tr::ProjectiveTransform>(std::move(m), p.dimensionality);
  }
  if (kind.empty()) {
    const auto three = [](const std::optional<std::vector<double>>& v) { return v && v->size() == 3; };
    kind = !p.shear && (three(p.rotation) || three(p.scale) || three(p.translation)) ? "similarity" : "affine";
  }
  if (kind == "euclidean") return std::make_shared<tr::EuclideanTransform>(p);
  if (kind == "similarity") return std::make_shared<tr::SimilarityTransform>(p);
  if (kind == "affine") return std::make_shared<tr::AffineTransform>(p);
  return std::make_shared<tr::ProjectiveTransform>(tr::AffineTransform(p).params(), p.dimensionality);
}

/// An (N, D) float64 point list from a .csv/.txt file (see above) or an array file (.npy, ...).
inline Array read_points(const std::string& path) {
  std::string ext = path.substr(path.find_last_of('.') == std::string::npos ? path.size() : path.find_last_of('.'));
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext != ".csv" && ext != ".txt") return io::imread(path).to(Device::cpu()).astype(DType::float64);
  std::ifstream in(path);
  if (!in) throw InvalidArgument("cannot open " + path);
  std::vector<double> values;
  std::int64_t rows = 0;
  std::int64_t cols = -1;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    for (char& ch : line)
      if (ch == ',' || ch == ';' || ch == '\t') ch = ' ';
    std::istringstream fields(line);
    std::vector<double> row;
    std::string tok;
    bool numeric = true;
    while (fields >> tok) {
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0') numeric = false;
      row.push_back(v);
    }
    if (row.empty()) continue;
    if (!numeric) {
      if (rows == 0 && cols < 0) continue;  // a header line
      throw InvalidArgument(path + ":" + std::to_string(lineno) + ": not a number");
    }
    if (cols >= 0 && static_cast<std::int64_t>(row.size()) != cols)
      throw InvalidArgument(path + ":" + std::to_string(lineno) + ": expected " + std::to_string(cols) + " values");
    cols = static_cast<std::int64_t>(row.size());
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
  return Array::from_vector(values, Shape{rows, cols < 0 ? 0 : cols});
}

}  // namespace cuskimage::cli
