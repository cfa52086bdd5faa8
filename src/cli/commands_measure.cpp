// measure on the command line.
//   cuskimage measure.label mask.png labels.npy --connectivity 1
// label writes the label image and prints {"num": N} (scikit-image's return_num).
#include <string>

#include "cuskimage/measure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(measure) {
  reg.add(Command("measure.label", "Label connected regions of equal value (numbered in raster order); prints {\"num\": N}.")
              .input("label_image", "image to label (any dtype; pixels equal to background are 0)")
              .param(Param::integer("background", "none", "background value (default 0; 1 on a bool image labels the false pixels)"))
              .param(Param::integer("connectivity", "none", "maximum orthogonal hops between neighbours, 1..ndim (default ndim)"))
              .param(Param::dtype("dtype", "none", "int32 or int64 (default: int32 for bool images, else int64)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                measure::LabelOptions o;
                o.background = inv.opt_integer("background");
                if (auto c = inv.opt_integer("connectivity")) o.connectivity = static_cast<int>(*c);
                if (inv.has("dtype")) o.dtype = inv.dtype("dtype");
                auto r = measure::label_with_num(inv.input(0), o, inv.stream());
                Result res(std::move(r.labels));
                res.value = nlohmann::json{{"num", r.num}};
                return res;
              }));
}

}  // namespace cuskimage::cli
