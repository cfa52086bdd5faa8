// skimage.measure.marching_cubes on the command line: the mesh as four .npy files.
//   cuskimage measure.marching_cubes volume.npy verts.npy faces.npy normals.npy values.npy --level 0.5
//   cuskimage measure.marching_cubes volume.npy v.npy f.npy n.npy x.npy --spacing 2,1,1 --method lorensen
// The vertex and face counts and the surface area are printed as JSON.
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(measure_mcubes) {
  reg.add(Command("measure.marching_cubes", "Triangle mesh of an iso-surface of a 3-D volume (marching cubes).")
              .input("volume", "3-D volume (.npy, any real dtype)")
              .param(Param::number("level", "none", "iso-value (default (min + max) / 2)"))
              .param(Param::numbers("spacing", "1,1,1", "voxel spacing per axis (z, y, x)"))
              .param(Param::choice("gradient_direction", {"descent", "ascent"}, "descent",
                                   "descent: the object is brighter than the exterior"))
              .param(Param::integer("step_size", "1", "cube size in voxels"))
              .param(Param::boolean("allow_degenerate", "true", "keep zero-area triangles"))
              .param(Param::choice("method", {"lewiner", "lorensen"}, "lewiner", "case resolution"))
              .param(Param::array("mask", "none", "bool mask of the volume's shape"))
              .returns_image({"verts", "faces", "normals", "values"})
              .handler([](Invocation& inv) -> Result {
                measure::MarchingCubesOptions o;
                o.level = inv.opt_number("level");
                const auto sp = inv.numbers("spacing");
                if (sp.size() != 3) throw InvalidArgument("measure.marching_cubes: 'spacing' must consist of three floats");
                o.spacing = {sp[0], sp[1], sp[2]};
                o.gradient_direction = inv.string("gradient_direction") == "ascent" ? measure::GradientDirection::ascent
                                                                                      : measure::GradientDirection::descent;
                o.step_size = inv.integer("step_size");
                o.allow_degenerate = inv.flag("allow_degenerate");
                o.method = inv.string("method") == "lorensen" ? measure::MarchingCubesMethod::lorensen
                                                              : measure::MarchingCubesMethod::lewiner;
                if (inv.has("mask")) o.mask = inv.array("mask").share();
                auto m = measure::marching_cubes(inv.input(0), o, inv.stream());
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
