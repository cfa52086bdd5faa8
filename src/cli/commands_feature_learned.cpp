// feature.learn_gmm / feature.fisher_vector / feature.Cascade on the command line. A GMM travels as
// JSON {"means": [[..]], "covariances": [[..]], "weights": [..]} (learn_gmm prints it; fisher_vector
// reads it from a file); detections print as scikit-image's list of {"r", "c", "width", "height"}.
//   cuskimage feature.learn_gmm sift_a.npy sift_b.npy --n_modes 16 --random_state 3 > gmm.json
//   cuskimage feature.fisher_vector sift_test.npy gmm.json --improved true
//   cuskimage feature.Cascade face.xml astronaut.png --min_size 60,60 --max_size 123,123
#include <fstream>
#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

/// The (N_i, D) inputs stacked row-wise (scikit-image's np.vstack of a descriptor list), on the host.
Array stacked_inputs(Invocation& inv) {
  std::vector<double> all;
  std::int64_t rows = 0, cols = -1;
  for (std::size_t i = 0; i < inv.num_inputs(); ++i) {
    const Array& a = inv.input(i);
    if (a.ndim() != 2 || (cols >= 0 && a.shape(1) != cols))
      throw UsageError(inv.name() + ": every descriptor array must be 2-D with the same number of columns");
    cols = a.shape(1);
    rows += a.shape(0);
    const auto v = a.to_vector<double>();
    all.insert(all.end(), v.begin(), v.end());
  }
  return Array::from_vector(all, {rows, cols});
}

nlohmann::json gmm_to_json(const feature::Gmm& g) {
  return {{"means", array_to_json(g.means.to(Device::cpu()))},
          {"covariances", array_to_json(g.covariances.to(Device::cpu()))},
          {"weights", array_to_json(g.weights.to(Device::cpu()))}};
}

Array json_matrix(const nlohmann::json& j, const std::string& what, const std::string& cmd) {
  if (!j.is_array() || j.empty() || !j[0].is_array())
    throw UsageError(cmd + ": the GMM's '" + what + "' must be a list of rows");
  std::vector<double> v;
  for (const auto& row : j) {
    if (!row.is_array() || row.size() != j[0].size()) throw UsageError(cmd + ": ragged rows in '" + what + "'");
    for (const auto& x : row) v.push_back(x.get<double>());
  }
  return Array::from_vector(v, {static_cast<std::int64_t>(j.size()), static_cast<std::int64_t>(j[0].size())});
}

feature::Gmm read_gmm(const std::string& path, const std::string& cmd) {
  std::ifstream in(path);
  if (!in) throw UsageError(cmd + ": cannot read the GMM file '" + path + "'");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(cmd + ": '" + path + "' is not JSON: " + e.what());
  }
  if (!j.contains("means") || !j.contains("covariances") || !j.contains("weights") || !j["weights"].is_array())
    throw UsageError(cmd + ": the GMM JSON needs 'means', 'covariances' and 'weights'");
  return {json_matrix(j["means"], "means", cmd), json_matrix(j["covariances"], "covariances", cmd),
          Array::from_vector(j["weights"].get<std::vector<double>>(),
                             {static_cast<std::int64_t>(j["weights"].size())})};
}

}  // namespace

CUSK_CLI_COMMANDS(feature_learned) {
  reg.add(Command("feature.learn_gmm", "Fit a diagonal-covariance Gaussian mixture to descriptors (seeded EM).")
              .inputs("descriptors", "(N_i, D) descriptor arrays (.npy), stacked row-wise")
              .options<feature::LearnGmmOptions>()
              .returns_value("{\"means\": [[..]], \"covariances\": [[..]], \"weights\": [..]}")
              .handler([](Invocation& inv) -> Result {
                return gmm_to_json(feature::learn_gmm(stacked_inputs(inv).to(inv.device(), inv.stream()),
                                                      inv.options<feature::LearnGmmOptions>(), inv.stream()));
              }));
  reg.add(Command("feature.fisher_vector", "Fisher vector (2KD + K values) of descriptors under a GMM.")
              .input("descriptors", "(N, D) descriptors (.npy)")
              .input("gmm", "GMM as JSON (what feature.learn_gmm prints)")
              .options<feature::FisherVectorOptions>()
              .returns_value("[d_pi..., d_mu..., d_sigma...]")
              .handler([](Invocation& inv) -> Result {
                const feature::Gmm g = read_gmm(inv.input_path(1), inv.name());
                return array_to_json(feature::fisher_vector(inv.input(0), g,
                                                            inv.options<feature::FisherVectorOptions>(), inv.stream())
                                         .to(Device::cpu(), inv.stream()));
              }));
  reg.add(Command("feature.Cascade",
                  "Load an OpenCV LBP cascade (XML) and run detect_multi_scale on an image (grey or RGB).")
              .input("cascade", "OpenCV-format LBP cascade (.xml)")
              .input("image", "input image (2-D grey or RGB)")
              .param(Param::number("eps", "1e-05", "accuracy parameter: stage thresholds are lowered by eps"))
              .options<feature::DetectMultiScaleOptions>()
              .returns_value("[{\"r\": .., \"c\": .., \"width\": .., \"height\": ..}, ...]")
              .handler([](Invocation& inv) -> Result {
                const feature::Cascade casc(inv.input_path(0), inv.number("eps"));
                nlohmann::json out = nlohmann::json::array();
                for (const auto& d : casc.detect_multi_scale(
                         inv.input(1), inv.options<feature::DetectMultiScaleOptions>(), inv.stream()))
                  out.push_back({{"r", d.r}, {"c", d.c}, {"width", d.width}, {"height", d.height}});
                return out;
              }));
}

}  // namespace cuskimage::cli
