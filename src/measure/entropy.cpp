// skimage.measure.shannon_entropy: entropy of the distinct values (NaNs one value, -0 == 0), by a
// sort on the host or CUB's sort and run-length encoding on the device (kernels/measure/entropy.cu).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/entropy.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::on_backend;

}  // namespace

double shannon_entropy(const Array& image, double base, const Stream& stream) {
  constexpr std::string_view fn = "measure.shannon_entropy";
  expect_valid(image, fn, "image");
  expect(image.size() > 0, fn, "image", "must not be empty");
  return dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() -> double {
    return on_backend(
        image, stream,
        [&] {
          std::vector<double> v = image.to_vector<double>();
          for (double& x : v)
            if (x == 0.0) x = 0.0;  // -0.0 == 0.0
          std::sort(v.begin(), v.end(), [](double a, double b) { return a < b || (a == a && b != b); });
          const double total = static_cast<double>(v.size());
          double s = 0.0;
          for (std::size_t i = 0; i < v.size();) {
            std::size_t j = i + 1;
            while (j < v.size() && (v[j] == v[i] || (v[j] != v[j] && v[i] != v[i]))) ++j;
            const double pk = static_cast<double>(j - i) / total;
            s += -pk * std::log(pk);
            i = j;
          }
          return s / std::log(base);
        },
        [&](const auto&) { return detail::cuda_shannon_entropy<T>(image, base, stream); });
  });
}

}  // namespace cuskimage::measure
