// transform.radon_transform and finite_radon_transform on the command line:
//   cuskimage transform.radon img.png sino.npy [--theta 0,45,90] [--circle false]
//   cuskimage transform.iradon sino.npy rec.npy [--filter_name hann] [--interpolation cubic]
//   cuskimage transform.iradon_sart sino.npy rec.npy [--relaxation 0.3] [--clip 0,1] [--image prev.npy]
//   cuskimage transform.order_angles_golden_ratio --theta 0,10,20,30        (prints the order)
//   cuskimage transform.frt2 img.png f.npy          cuskimage transform.ifrt2 f.npy img.npy
#include <nlohmann/json.hpp>

#include "cuskimage/transform/finite_radon_transform.hpp"
#include "cuskimage/transform/radon_transform.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(transform_radon) {
  reg.add(Command("transform.radon", "Radon transform (sinogram: one column per angle).")
              .input("image", "2-D image")
              .options<transform::RadonOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::radon(inv.input(0), inv.options<transform::RadonOptions>(), inv.stream());
              }));
  reg.add(Command("transform.iradon", "Filtered back-projection of a sinogram.")
              .input("radon_image", "sinogram (one column per angle)")
              .options<transform::IradonOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::iradon(inv.input(0), inv.options<transform::IradonOptions>(), inv.stream());
              }));
  reg.add(Command("transform.iradon_sart", "One pass of the simultaneous algebraic reconstruction technique.")
              .input("radon_image", "sinogram (one column per angle)")
              .options<transform::IradonSartOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::iradon_sart(inv.input(0), inv.options<transform::IradonSartOptions>(), inv.stream());
              }));
  reg.add(Command("transform.order_angles_golden_ratio", "Projection order keeping successive angles far apart.")
              .param(Param::numbers("theta", required, "angles in degrees"))
              .returns_value("[i0, i1, ...]")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(transform::order_angles_golden_ratio(inv.numbers("theta")));
              }));
  reg.add(Command("transform.frt2", "Finite Radon transform of a square array (uint32 (n + 1, n)).")
              .input("a", "square 2-D array")
              .returns_image()
              .handler([](Invocation& inv) -> Result { return transform::frt2(inv.input(0), inv.stream()); }));
  reg.add(Command("transform.ifrt2", "Inverse finite Radon transform of an (n + 1) x n array (float64).")
              .input("a", "(n + 1) x n unsigned array, e.g. frt2's output")
              .returns_image()
              .handler([](Invocation& inv) -> Result { return transform::ifrt2(inv.input(0), inv.stream()); }));
}

}  // namespace cuskimage::cli
