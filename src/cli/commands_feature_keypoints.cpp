// feature.ORB / SIFT / CENSURE / BRIEF / match_descriptors / plot_matched_features on the command
// line: keypoints and matches as CSV tables (to OUTPUT.csv when given, else stdout); binary
// descriptors as hexadecimal strings (bit 0 the most significant bit of the first digit, as
// np.packbits), SIFT's uint8 descriptors as two hexadecimal digits per entry.
//   cuskimage feature.ORB camera.png orb.csv --n_keypoints 200
//   cuskimage feature.SIFT camera.png --upsampling 1
//   cuskimage feature.BRIEF camera.png keypoints.npy brief.csv --patch_size 25
//   cuskimage feature.match_descriptors d1.npy d2.npy --max_ratio 0.8
//   cuskimage feature.plot_matched_features a.png b.png kp_a.npy kp_b.npy matches.npy out.png
#include <cstdint>
#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/util.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

/// Rows of a 2-D array on the host as doubles.
std::vector<double> host_values(const Array& a, const Stream& s) {
  return a.valid() ? a.to(Device::cpu(), s).to_vector<double>() : std::vector<double>{};
}

/// Descriptor i of a (N, L) bool array as L / 4 hex digits, or of a uint8 array as 2 L digits.
std::string hex_row(const std::vector<std::uint8_t>& d, std::int64_t len, std::int64_t i, bool bits) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  if (bits) {
    for (std::int64_t k = 0; k < len; k += 4) {
      int v = 0;
      for (int b = 0; b < 4 && k + b < len; ++b) v |= (d[i * len + k + b] != 0) << (3 - b);
      s += digits[v];
    }
  } else {
    for (std::int64_t k = 0; k < len; ++k) s += digits[d[i * len + k] >> 4], s += digits[d[i * len + k] & 15];
  }
  return s;
}

/// A keypoint table: one column per named 1-D attribute (or the two of a (N, 2) one), then the
/// descriptor when given.
Table keypoint_table(const std::vector<std::pair<std::string, const Array*>>& cols, const Array& desc, bool bits,
                     const Stream& s) {
  Table t;
  std::vector<std::vector<double>> vals;
  std::vector<bool> ints;
  std::int64_t n = 0;
  for (const auto& [name, a] : cols) {
    vals.push_back(host_values(*a, s));
    ints.push_back(a->dtype() == DType::int64);
    n = a->shape(0);
    if (a->ndim() == 2) {
      t.columns.push_back("row"), t.columns.push_back("col");
    } else {
      t.columns.push_back(name);
    }
  }
  std::vector<std::uint8_t> d;
  if (desc.valid()) {
    t.columns.push_back("descriptor");
    d = desc.to(Device::cpu(), s).astype(DType::uint8).to_vector<std::uint8_t>();
  }
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<nlohmann::json> row;
    for (std::size_t c = 0; c < cols.size(); ++c) {
      auto cell = [&](double v) {
        if (ints[c])
          row.emplace_back(static_cast<std::int64_t>(v));
        else
          row.emplace_back(v);
      };
      if (cols[c].second->ndim() == 2) {
        cell(vals[c][2 * i]), cell(vals[c][2 * i + 1]);
      } else {
        cell(vals[c][i]);
      }
    }
    if (desc.valid()) row.emplace_back(hex_row(d, desc.shape(1), i, bits));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

CUSK_CLI_COMMANDS(feature_keypoints) {
  reg.add(Command("feature.ORB", "ORB keypoints and binary descriptors (detect_and_extract).")
              .input("image", "2-D image")
              .options<feature::OrbOptions>()
              .returns_table("row, col, scale, orientation, response, descriptor (hex) per keypoint")
              .handler([](Invocation& inv) -> Result {
                feature::ORB o(inv.options<feature::OrbOptions>());
                o.detect_and_extract(inv.input(0), inv.stream());
                return keypoint_table({{"", &o.keypoints}, {"scale", &o.scales}, {"orientation", &o.orientations},
                                       {"response", &o.responses}},
                                      o.descriptors, true, inv.stream());
              }));
  reg.add(Command("feature.SIFT", "SIFT keypoints and descriptors (detect_and_extract).")
              .input("image", "2-D image")
              .options<feature::SiftOptions>()
              .returns_table("row, col (positions), sigma, scale, octave, orientation, descriptor (hex bytes)")
              .handler([](Invocation& inv) -> Result {
                feature::SIFT s(inv.options<feature::SiftOptions>());
                s.detect_and_extract(inv.input(0), inv.stream());
                return keypoint_table({{"", &s.positions}, {"sigma", &s.sigmas}, {"scale", &s.scales},
                                       {"octave", &s.octaves}, {"orientation", &s.orientations}},
                                      s.descriptors, false, inv.stream());
              }));
  reg.add(Command("feature.CENSURE", "CENSURE keypoints.")
              .input("image", "2-D image")
              .options<feature::CensureOptions>()
              .returns_table("row, col, scale per keypoint")
              .handler([](Invocation& inv) -> Result {
                feature::CENSURE d(inv.options<feature::CensureOptions>());
                d.detect(inv.input(0), inv.stream());
                return keypoint_table({{"", &d.keypoints}, {"scale", &d.scales}}, Array(), false, inv.stream());
              }));
  reg.add(Command("feature.BRIEF", "BRIEF binary descriptors of the keypoints not too close to the border.")
              .input("image", "2-D image")
              .input("keypoints", "(N, 2) keypoints (row, col), .npy")
              .options<feature::BriefOptions>()
              .returns_table("row, col, descriptor (hex) per kept keypoint")
              .handler([](Invocation& inv) -> Result {
                const Array& kp = inv.input(1);
                const auto r = feature::brief(inv.input(0), kp, inv.options<feature::BriefOptions>(), inv.stream());
                const auto m = r.mask.to(Device::cpu(), inv.stream()).to_vector<std::uint8_t>();
                const auto k = host_values(kp, inv.stream());
                std::vector<double> kept;
                for (std::size_t i = 0; i < m.size(); ++i)
                  if (m[i]) kept.push_back(k[2 * i]), kept.push_back(k[2 * i + 1]);
                const Array ka = Array::from_vector(kept, {static_cast<std::int64_t>(kept.size() / 2), 2});
                return keypoint_table({{"", &ka}}, r.descriptors, true, inv.stream());
              }));
  reg.add(Command("feature.match_descriptors", "Brute-force matches between two descriptor sets.")
              .input("descriptors1", "(M, P) descriptors, .npy")
              .input("descriptors2", "(N, P) descriptors, .npy")
              .options<feature::MatchDescriptorsOptions>()
              .returns_table("index1, index2 per match")
              .handler([](Invocation& inv) -> Result {
                const Array m = feature::match_descriptors(inv.input(0), inv.input(1),
                                                           inv.options<feature::MatchDescriptorsOptions>(), inv.stream());
                Table t;
                t.columns = {"index1", "index2"};
                const auto v = m.to(Device::cpu(), inv.stream()).to_vector<std::int64_t>();
                for (std::size_t i = 0; i < v.size(); i += 2) t.rows.push_back({v[i], v[i + 1]});
                return t;
              }));
  reg.add(Command("feature.plot_matched_features",
                  "The two images side by side with keypoint circles and match lines, as a uint8 RGB image.")
              .input("image0", "first image")
              .input("image1", "second image")
              .input("keypoints0", "(K0, 2) keypoints of image0, .npy")
              .input("keypoints1", "(K1, 2) keypoints of image1, .npy")
              .input("matches", "(Q, 2) integer matches, .npy")
              .options<feature::PlotMatchedFeaturesOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const Array rgb = feature::plot_matched_features(inv.input(0), inv.input(1), inv.input(2), inv.input(3),
                                                                 inv.input(4),
                                                                 inv.options<feature::PlotMatchedFeaturesOptions>(),
                                                                 inv.stream());
                return util::img_as_ubyte(rgb, {}, inv.stream());  // [0, 1] floats, written as any image format
              }));
}

}  // namespace cuskimage::cli
