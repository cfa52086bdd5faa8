// filters.{frangi,hessian,meijering,sato}: the ridge filters on the command line.
//   cuskimage filters.frangi vessels.png out.tif --sigmas 1,2,3 --black_ridges false
//   cuskimage filters.meijering neurons.tif out.tif --sigmas 1,2 --alpha -0.3
#include "cuskimage/filters.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

template <class S>
Command ridge(const char* name, const char* summary, const char* input_help,
              Array (*fn)(const Array&, const S&, const Stream&)) {
  return Command(name, summary)
      .input("image", input_help)
      .options<S>()
      .returns_image()
      .handler([fn](Invocation& inv) -> Result { return fn(inv.input(0), inv.options<S>(), inv.stream()); });
}

}  // namespace

CUSK_CLI_COMMANDS(filters_ridges) {
  using namespace filters;
  reg.add(ridge<FrangiOptions>("filters.frangi", "Frangi vesselness filter (maximum over the scales).",
                               "2-D or 3-D image", frangi));
  reg.add(ridge<HessianOptions>("filters.hessian", "Hybrid Hessian filter (frangi, then values <= 0 set to 1).",
                                "2-D or 3-D image", hessian));
  reg.add(ridge<MeijeringOptions>("filters.meijering", "Meijering neuriteness filter (maximum over the scales).",
                                  "N-d image", meijering));
  reg.add(ridge<SatoOptions>("filters.sato", "Sato tubeness filter (maximum over the scales).", "2-D or 3-D image",
                             sato));
}

}  // namespace cuskimage::cli
