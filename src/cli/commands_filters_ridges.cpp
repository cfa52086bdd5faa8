// filters.{frangi,hessian,meijering,sato}: the ridge filters on the command line.
//   cuskimage filters.frangi vessels.png out.tif --sigmas 1,2,3 --black_ridges false
//   cuskimage filters.meijering neurons.tif out.tif --sigmas 1,2 --alpha -0.3
#include <array>

#include "cuskimage/filters.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

const std::vector<std::string> kRidgeModes = {"constant", "reflect", "wrap", "nearest", "mirror"};

Param sigmas_param() { return Param::numbers("sigmas", "1,3,5,7,9", "scales (Gaussian standard deviations)"); }
Param black_param() { return Param::boolean("black_ridges", "true", "detect black ridges (false: white ones)"); }
Param mode_param() {
  return Param::choice("mode", kRidgeModes, "reflect", "how the image is extended beyond its edges");
}
Param cval_param() { return Param::number("cval", "0", "value outside the edges for mode 'constant'"); }
Param range_param() {
  return Param::numbers("scale_range", "none", "(start, stop) of the scales; with scale_step replaces sigmas");
}
Param step_param() { return Param::number("scale_step", "none", "step between scales (with scale_range)"); }

ndimage::Mode mode_of(const Invocation& inv) { return ndimage::mode_from_name(inv.string("mode")); }

std::optional<std::array<double, 2>> range_of(const Invocation& inv) {
  if (!inv.has("scale_range")) return std::nullopt;
  const auto v = inv.numbers("scale_range");
  if (v.size() != 2) throw UsageError(inv.name() + ": --scale_range takes two numbers (start,stop)");
  return std::array<double, 2>{v[0], v[1]};
}

/// frangi and hessian take the same keywords (hessian's gamma defaults to 15, frangi's to automatic).
template <class Opts>
Command frangi_like(const char* name, const char* help, const char* gamma_default,
                    Array (*fn)(const Array&, const Opts&, const Stream&)) {
  return Command(name, help)
      .input("image", "2-D or 3-D image")
      .param(sigmas_param())
      .param(range_param())
      .param(step_param())
      .param(Param::number("alpha", "0.5", "sensitivity to deviation from a plate-like structure"))
      .param(Param::number("beta", "0.5", "sensitivity to deviation from a blob-like structure"))
      .param(Param::number("gamma", gamma_default, "sensitivity to high-variance areas (none: automatic)"))
      .param(black_param())
      .param(mode_param())
      .param(cval_param())
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0),
                  {.sigmas = inv.numbers("sigmas"),
                   .scale_range = range_of(inv),
                   .scale_step = inv.opt_number("scale_step"),
                   .alpha = inv.number("alpha"),
                   .beta = inv.number("beta"),
                   .gamma = inv.opt_number("gamma"),
                   .black_ridges = inv.flag("black_ridges"),
                   .mode = mode_of(inv),
                   .cval = inv.number("cval")},
                  inv.stream());
      });
}

}  // namespace

CUSK_CLI_COMMANDS(filters_ridges) {
  reg.add(frangi_like<filters::FrangiOptions>("filters.frangi", "Frangi vesselness filter (maximum over the scales).",
                                              "none", filters::frangi));
  reg.add(frangi_like<filters::HessianOptions>(
      "filters.hessian", "Hybrid Hessian filter (frangi, then values <= 0 set to 1).", "15", filters::hessian));
  reg.add(Command("filters.meijering", "Meijering neuriteness filter (maximum over the scales).")
              .input("image", "N-d image")
              .param(sigmas_param())
              .param(Param::number("alpha", "none", "shaping constant (none: 1 / (ndim + 1))"))
              .param(black_param())
              .param(mode_param())
              .param(cval_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::meijering(inv.input(0),
                                          {.sigmas = inv.numbers("sigmas"),
                                           .alpha = inv.opt_number("alpha"),
                                           .black_ridges = inv.flag("black_ridges"),
                                           .mode = mode_of(inv),
                                           .cval = inv.number("cval")},
                                          inv.stream());
              }));
  reg.add(Command("filters.sato", "Sato tubeness filter (maximum over the scales).")
              .input("image", "2-D or 3-D image")
              .param(sigmas_param())
              .param(black_param())
              .param(mode_param())
              .param(cval_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::sato(inv.input(0),
                                     {.sigmas = inv.numbers("sigmas"),
                                      .black_ridges = inv.flag("black_ridges"),
                                      .mode = mode_of(inv),
                                      .cval = inv.number("cval")},
                                     inv.stream());
              }));
}

}  // namespace cuskimage::cli
