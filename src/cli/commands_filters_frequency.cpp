// filters.* frequency-domain commands: butterworth, gabor (two outputs: real and imaginary
// responses), and the LPIFilter2D family with the Gaussian impulse response of scikit-image's
// docstring, exp(-(r^2 + c^2) / (2 sigma^2)) (a C++ callable cannot be given on the command line).
//   cuskimage filters.butterworth camera.png hp.tif --cutoff_frequency_ratio 0.07 --order 8
//   cuskimage filters.gabor coins.png re.tif im.tif --frequency 0.6
//   cuskimage filters.wiener blurred.tif restored.tif --sigma 2 --K 0.01
#include <cmath>

#include "cuskimage/filters.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

const std::vector<std::string> kModes = {"reflect", "grid-mirror", "mirror", "nearest", "wrap", "grid-wrap",
                                         "constant", "grid-constant"};

Param sigma_param() {
  return Param::number("sigma", "1", "width of the Gaussian impulse response exp(-(r^2 + c^2) / (2 sigma^2))");
}

filters::ImpulseResponse gaussian_response(double sigma) {
  return [sigma](double r, double c) { return std::exp(-(r * r + c * c) / (2 * sigma * sigma)); };
}

}  // namespace

CUSK_CLI_COMMANDS(filters_frequency) {
  reg.add(Command("filters.butterworth", "Butterworth high- or low-pass filter in the Fourier domain (N-d).")
              .input("image", "input image")
              .param(Param::number("cutoff_frequency_ratio", "0.005", "cut-off as a fraction of the sampling frequency"))
              .param(Param::boolean("high_pass", "true", "high-pass (true) or low-pass (false)"))
              .param(Param::number("order", "2.0", "filter order (slope at the cut-off)"))
              .param(Param::integer("channel_axis", "none", "axis of the channels, not filtered"))
              .param(Param::boolean("squared_butterworth", "true", "use the squared Butterworth gain"))
              .param(Param::integer("npad", "0", "edge padding of every axis before the FFT"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                std::optional<int> ca;
                if (auto c = inv.opt_integer("channel_axis")) ca = static_cast<int>(*c);
                return filters::butterworth(inv.input(0),
                                            {.cutoff_frequency_ratio = inv.number("cutoff_frequency_ratio"),
                                             .high_pass = inv.flag("high_pass"),
                                             .order = inv.number("order"),
                                             .channel_axis = ca,
                                             .squared_butterworth = inv.flag("squared_butterworth"),
                                             .npad = inv.integer("npad")},
                                            inv.stream());
              }));
  reg.add(Command("filters.gabor", "Real and imaginary responses to a Gabor filter (2-D).")
              .input("image", "2-D input image")
              .param(Param::number("frequency", std::nullopt, "spatial frequency of the harmonic (cycles per pixel)"))
              .param(Param::number("theta", "0", "orientation in radians"))
              .param(Param::number("bandwidth", "1", "bandwidth (ignored when sigma_x and sigma_y are given)"))
              .param(Param::number("sigma_x", "none", "standard deviation along x before rotation"))
              .param(Param::number("sigma_y", "none", "standard deviation along y before rotation"))
              .param(Param::number("n_stds", "3", "kernel half-size in standard deviations"))
              .param(Param::number("offset", "0", "phase offset in radians"))
              .param(Param::choice("mode", kModes, "reflect", "how the image is extended beyond its edges"))
              .param(Param::number("cval", "0", "value beyond the edges in 'constant' mode"))
              .returns_image({"real", "imag"})
              .handler([](Invocation& inv) -> Result {
                auto r = filters::gabor(inv.input(0), inv.number("frequency"),
                                        {.theta = inv.number("theta"),
                                         .bandwidth = inv.number("bandwidth"),
                                         .sigma_x = inv.opt_number("sigma_x"),
                                         .sigma_y = inv.opt_number("sigma_y"),
                                         .n_stds = inv.number("n_stds"),
                                         .offset = inv.number("offset"),
                                         .mode = ndimage::mode_from_name(inv.string("mode")),
                                         .cval = inv.number("cval")},
                                        inv.stream());
                Result res;
                res.images.push_back(std::move(r.real));
                res.images.push_back(std::move(r.imag));
                return res;
              }));
  reg.add(Command("filters.filter_forward", "Linear position-invariant filter with a Gaussian impulse response.")
              .input("data", "2-D input image")
              .param(sigma_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::filter_forward(
                    inv.input(0), {.impulse_response = gaussian_response(inv.number("sigma"))}, inv.stream());
              }));
  reg.add(Command("filters.filter_inverse", "Inverse of a Gaussian LPI filter with limited gain.")
              .input("data", "2-D input image")
              .param(sigma_param())
              .param(Param::number("max_gain", "2", "limit of the inverse filter's gain"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::filter_inverse(inv.input(0),
                                               {.impulse_response = gaussian_response(inv.number("sigma")),
                                                .max_gain = inv.number("max_gain")},
                                               inv.stream());
              }));
  reg.add(Command("filters.wiener", "Wiener (minimum mean square error) inverse of a Gaussian LPI filter.")
              .input("data", "2-D input image")
              .param(sigma_param())
              .param(Param::number("K", "0.25", "noise-to-signal power ratio"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::wiener(
                    inv.input(0), {.impulse_response = gaussian_response(inv.number("sigma")), .K = inv.number("K")},
                    inv.stream());
              }));
}

}  // namespace cuskimage::cli
