// transform.integral on the command line:
//   cuskimage transform.integral_image img.png ii.npy [--dtype float32]
//   cuskimage transform.integrate ii.npy start.npy end.npy      (windows (n, ndim); prints the sums)
#include "cuskimage/transform/integral.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(transform_integral) {
  reg.add(Command("transform.integral_image", "Summed-area table (cumulative sums along every axis).")
              .input("image", "input image (any number of dimensions)")
              .options<transform::IntegralImageOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::integral_image(inv.input(0), inv.options<transform::IntegralImageOptions>(),
                                                 inv.stream());
              }));
  reg.add(Command("transform.integrate", "Sums over windows [start, end] (inclusive) of an integral image.")
              .input("ii", "integral image (.npy)")
              .input("start", "(n, ndim) integer start corners (.npy); negative counts from the end")
              .input("end", "(n, ndim) integer end corners (.npy)")
              .returns_value("[s0, s1, ...]")
              .handler([](Invocation& inv) -> Result {
                return array_to_json(transform::integrate(inv.input(0), inv.input(1), inv.input(2), inv.stream())
                                         .to(Device::cpu(), inv.stream()));
              }));
}

}  // namespace cuskimage::cli
