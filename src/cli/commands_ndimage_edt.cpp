// ndimage.distance_transform_edt on the command line (one OUTPUT: the distances, or with
// --return_distances false --return_indices true the int32 feature transform of shape (ndim, ...)).
//   cuskimage ndimage.distance_transform_edt mask.png dist.npy --sampling 2,1
//   cuskimage ndimage.distance_transform_edt mask.png ind.npy --return_distances false --return_indices true
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(ndimage_edt) {
  reg.add(Command("ndimage.distance_transform_edt",
                  "Exact Euclidean distance of every non-zero element to the nearest zero element (float64); "
                  "one OUTPUT, so --return_indices true needs --return_distances false.")
              .input("input", "input image (non-zero = foreground)")
              .options<ndimage::EdtOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto o = inv.options<ndimage::EdtOptions>();
                if (o.return_distances && o.return_indices)
                  throw UsageError(inv.name() + ": the tool writes one OUTPUT; give --return_distances false with "
                                                "--return_indices true");
                auto r = ndimage::distance_transform_edt(inv.input(0), o, inv.stream());
                return o.return_distances ? std::move(r.distances) : std::move(r.indices);
              }));
}

}  // namespace cuskimage::cli
