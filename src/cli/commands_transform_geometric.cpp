// skimage.transform._geometric on the command line. Point lists are .npy or .csv/.txt files of
// (N, D) points (read_points in transform_args.hpp).
//   cuskimage transform.estimate_transform src.csv dst.csv --ttype similarity
//   cuskimage transform.matrix_transform coords.csv out.csv --matrix 1,0,5,0,1,-2,0,0,1
#include <memory>

#include "cuskimage/transform/geometric.hpp"
#include "src/cli/registry.hpp"
#include "src/cli/transform_args.hpp"

namespace cuskimage::cli {

namespace {

nlohmann::json matrix_json(const transform::Matrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::int64_t r = 0; r < m.rows; ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (std::int64_t c = 0; c < m.cols; ++c) row.push_back(m(r, c));
    rows.push_back(std::move(row));
  }
  return rows;
}

/// {"success", "message", "type", "params" (or, piecewise-affine, "simplices")}.
nlohmann::json estimation_json(const transform::Estimated<std::shared_ptr<transform::GeometricTransform>>& est) {
  namespace tr = transform;
  nlohmann::json out = {{"success", static_cast<bool>(est)}, {"message", est.message}};
  if (!est) return out;
  const tr::GeometricTransform* tf = est.value().get();
  out["type"] = tf->name();
  if (const auto* p = dynamic_cast<const tr::ProjectiveTransform*>(tf)) out["params"] = matrix_json(p->params());
  else if (const auto* q = dynamic_cast<const tr::PolynomialTransform*>(tf)) out["params"] = matrix_json(q->params());
  else if (const auto* f = dynamic_cast<const tr::FundamentalMatrixTransform*>(tf)) out["params"] = matrix_json(f->params());
  else if (const auto* pw = dynamic_cast<const tr::PiecewiseAffineTransform*>(tf)) {
    nlohmann::json simplices = nlohmann::json::array();
    for (const auto& s : pw->tesselation().simplices) simplices.push_back(s);
    out["simplices"] = std::move(simplices);
  }
  return out;
}

Table points_table(const Array& pts) {
  Table t;
  const char* names[] = {"x", "y", "z"};
  const std::int64_t d = pts.shape(1);
  for (std::int64_t c = 0; c < d; ++c) t.columns.push_back(d <= 3 ? names[c] : "c" + std::to_string(c));
  const std::vector<double> v = pts.to_vector<double>();
  for (std::int64_t r = 0; r < pts.shape(0); ++r) {
    std::vector<nlohmann::json> row;
    for (std::int64_t c = 0; c < d; ++c) row.emplace_back(v[static_cast<std::size_t>(r * d + c)]);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

CUSK_CLI_COMMANDS(transform_geometric) {
  reg.add(Command("transform.estimate_transform",
                  "Estimate a geometric transform from point correspondences (JSON: success, message, type, "
                  "params).")
              .input("src", "(N, D) source points (.npy, or .csv/.txt one point per line)")
              .input("dst", "(N, D) destination points")
              .param(Param::choice("ttype",
                                   {"euclidean", "similarity", "affine", "piecewise-affine", "projective",
                                    "fundamental", "essential", "polynomial"},
                                   required, "transform type"))
              .options<transform::EstimateTransformOptions>()
              .param(Param::array("weights", "none", "(N,) weights (projective, affine, polynomial)"))
              .returns_value("the estimation: {success, message, type, params}")
              .handler([](Invocation& inv) -> Result {
                const Array src = read_points(inv.input_path(0));
                const Array dst = read_points(inv.input_path(1));
                const Array weights = inv.has("weights") ? inv.array("weights").to(Device::cpu()) : Array();
                return estimation_json(transform::estimate_transform(
                    inv.string("ttype"), src, dst, inv.options<transform::EstimateTransformOptions>(), weights));
              }));
  reg.add(with_transform_params(Command("transform.matrix_transform",
                                        "Apply a homogeneous matrix (--matrix, or the parameters) to points "
                                        "(CSV columns x, y[, z]).")
                                    .input("coords", "(N, D) points (.npy, or .csv/.txt one point per line)"))
              .returns_table("the transformed points")
              .handler([](Invocation& inv) -> Result {
                const auto tf = transform_from(inv);
                return points_table((*tf)(read_points(inv.input_path(0))));
              }));
}

}  // namespace cuskimage::cli
