// skimage.measure.marching_cubes on the command line: the mesh as four .npy files.
//   cuskimage measure.marching_cubes volume.npy verts.npy faces.npy normals.npy values.npy --level 0.5
//   cuskimage measure.marching_cubes volume.npy v.npy f.npy n.npy x.npy --spacing 2,1,1 --method lorensen
// The vertex and face counts and the surface area are printed as JSON.
#include <string>

#include "cuskimage/measure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(measure_mcubes) {
  reg.add(Command("measure.marching_cubes", "Triangle mesh of an iso-surface of a 3-D volume (marching cubes).")
              .input("volume", "3-D volume (.npy, any real dtype)")
              .options<measure::MarchingCubesOptions>()
              .returns_image({"verts", "faces", "normals", "values"})
              .handler([](Invocation& inv) -> Result {
                auto m = measure::marching_cubes(inv.input(0), inv.options<measure::MarchingCubesOptions>(), inv.stream());
                Result r;
                r.value = nlohmann::json{{"vertices", m.verts.shape(0)},
                                         {"faces", m.faces.shape(0)},
                                         {"area", measure::mesh_surface_area(m.verts, m.faces, inv.stream())}};
                r.images.push_back(std::move(m.verts));
                r.images.push_back(std::move(m.faces));
                r.images.push_back(std::move(m.normals));
                r.images.push_back(std::move(m.values));
                return r;
              }));
}

}  // namespace cuskimage::cli
