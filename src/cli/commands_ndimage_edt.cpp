// ndimage.distance_transform_edt on the command line (one OUTPUT: the distances, or with
// --return_distances false --return_indices true the int32 feature transform of shape (ndim, ...)).
//   cuskimage ndimage.distance_transform_edt mask.png dist.npy --sampling 2,1
//   cuskimage ndimage.distance_transform_edt mask.png ind.npy --return_distances false --return_indices true
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(ndimage_edt) {
  reg.add(Command("ndimage.distance_transform_edt",
                  "Exact Euclidean distance of every non-zero element to the nearest zero element (float64).")
              .input("input", "input image (non-zero = foreground)")
              .param(Param::numbers("sampling", "none", "spacing of the elements, one value or one per axis"))
              .param(Param::boolean("return_distances", "true", "write the distances (float64)"))
              .param(Param::boolean("return_indices", "false",
                                    "write the feature transform (int32, shape (ndim, ...)); needs "
                                    "--return_distances false, since the tool writes one output"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const bool dist = inv.flag("return_distances"), ind = inv.flag("return_indices");
                if (dist && ind)
                  throw UsageError(inv.name() + ": the tool writes one OUTPUT; give --return_distances false with "
                                                "--return_indices true");
                ndimage::EdtOptions o{.return_distances = dist, .return_indices = ind};
                if (inv.has("sampling")) o.sampling = inv.numbers("sampling");
                auto r = ndimage::distance_transform_edt(inv.input(0), o, inv.stream());
                return dist ? std::move(r.distances) : std::move(r.indices);
              }));
}

}  // namespace cuskimage::cli
