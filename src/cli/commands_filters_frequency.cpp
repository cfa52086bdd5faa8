// filters.* frequency-domain commands: butterworth, gabor and gabor_kernel (two outputs: real and
// imaginary parts), and the LPIFilter2D family. The impulse response is an array file sampled at
// integer offsets from its centre (--impulse_response kernel.npy), or by default the Gaussian of
// scikit-image's docstring, exp(-(r^2 + c^2) / (2 sigma^2)) with --sigma.
//   cuskimage filters.butterworth camera.png hp.tif --cutoff_frequency_ratio 0.07 --order 8
//   cuskimage filters.gabor coins.png re.tif im.tif --frequency 0.6
//   cuskimage filters.gabor_kernel re.npy im.npy --frequency 0.2 --theta 0.5
//   cuskimage filters.wiener blurred.tif restored.tif --sigma 2 --K 0.01
//   cuskimage filters.LPIFilter2D camera.png out.tif --impulse_response psf.npy
#include <cmath>

#include "cuskimage/filters.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

Param sigma_param() {
  return Param::number("sigma", "1.0",
                       "width of the Gaussian impulse response exp(-(r^2 + c^2) / (2 sigma^2)), used without "
                       "--impulse_response");
}

/// The options with the Gaussian of --sigma where no --impulse_response was given.
template <class S>
S lpi_options(Invocation& inv) {
  S o = inv.options<S>();
  if (!o.impulse_response) {
    const double sigma = inv.number("sigma");
    o.impulse_response = [sigma](double r, double c) { return std::exp(-(r * r + c * c) / (2 * sigma * sigma)); };
  }
  return o;
}

Result parts(filters::ComplexParts p) {
  Result res;
  res.images.push_back(std::move(p.real));
  res.images.push_back(std::move(p.imag));
  return res;
}

}  // namespace

CUSK_CLI_COMMANDS(filters_frequency) {
  using namespace filters;
  reg.add(Command("filters.butterworth", "Butterworth high- or low-pass filter in the Fourier domain (N-d).")
              .input("image", "input image")
              .options<ButterworthOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return butterworth(inv.input(0), inv.options<ButterworthOptions>(), inv.stream());
              }));
  reg.add(Command("filters.gabor", "Real and imaginary responses to a Gabor filter (2-D).")
              .input("image", "2-D input image")
              .param(Param::number("frequency", required, "spatial frequency of the harmonic (cycles per pixel)"))
              .options<GaborOptions>()
              .returns_image({"real", "imag"})
              .handler([](Invocation& inv) -> Result {
                return parts(gabor(inv.input(0), inv.number("frequency"), inv.options<GaborOptions>(), inv.stream()));
              }));
  reg.add(Command("filters.gabor_kernel", "The complex Gabor kernel as its real and imaginary parts.")
              .param(Param::number("frequency", required, "spatial frequency of the harmonic (cycles per pixel)"))
              .options<GaborKernelOptions>()
              .returns_image({"real", "imag"})
              .handler([](Invocation& inv) -> Result {
                return parts(gabor_kernel(inv.number("frequency"), inv.options<GaborKernelOptions>()));
              }));
  reg.add(Command("filters.LPIFilter2D", "LPIFilter2D(impulse_response)(data): a linear position-invariant filter.")
              .input("data", "2-D input image")
              .param(sigma_param())
              .options<FilterForwardOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return LPIFilter2D(lpi_options<FilterForwardOptions>(inv).impulse_response)(inv.input(0), inv.stream());
              }));
  reg.add(Command("filters.filter_forward", "Linear position-invariant filter (default: a Gaussian impulse response).")
              .input("data", "2-D input image")
              .param(sigma_param())
              .options<FilterForwardOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filter_forward(inv.input(0), lpi_options<FilterForwardOptions>(inv), inv.stream());
              }));
  reg.add(Command("filters.filter_inverse", "Inverse of an LPI filter with limited gain.")
              .input("data", "2-D input image")
              .param(sigma_param())
              .options<FilterInverseOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filter_inverse(inv.input(0), lpi_options<FilterInverseOptions>(inv), inv.stream());
              }));
  reg.add(Command("filters.wiener", "Wiener (minimum mean square error) inverse of an LPI filter.")
              .input("data", "2-D input image")
              .param(sigma_param())
              .options<WienerOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return wiener(inv.input(0), lpi_options<WienerOptions>(inv), inv.stream());
              }));
}

}  // namespace cuskimage::cli
