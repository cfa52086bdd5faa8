// io.* commands: reading and writing images, i.e. format conversion.
//   cuskimage io.imread in.png out.npy --as_gray true
//   cuskimage io.imsave in.npy out.jpg --quality 90
#include "cuskimage/io.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(io) {
  reg.add(Command("io.imread",
                  "Load an image from a file (TIFF, PNG, JPEG or NPY) and write it to OUTPUT in the format of "
                  "OUTPUT's extension; with --as_gray, colour images become float64 luminance.")
              .input("fname", "image file to read")
              .param(Param::boolean("as_gray", "false", "convert colour images to grey-level (float64, rgb2gray weights)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                io::ImreadOptions opt;
                opt.as_gray = inv.flag("as_gray");
                opt.device = inv.device();
                return io::imread(inv.input_path(0), opt, inv.stream());
              }));

  reg.add(Command("io.imsave",
                  "Save the image ARR to FNAME; the format follows FNAME's extension (.tif/.tiff, .png, "
                  ".jpg/.jpeg, .npy).")
              .input("arr", "image to save")
              .param(Param::integer("quality", "75", "JPEG quality, 1..100"))
              .param(Param::boolean("check_contrast", "true", "warn on stderr when the image is low contrast"))
              .param(Param::choice("compression", {"none", "deflate", "lzw", "jpeg"}, "none",
                                   "TIFF compression (jpeg: uint8 grey or RGB only, uses --quality)"))
              .param(Param::ints("tile", "0,0", "TIFF tile size rows,cols (multiples of 16); 0,0 writes strips"))
              .param(Param::boolean("bigtiff", "false", "write BigTIFF even when a classic TIFF would do"))
              .returns_image({"fname"})
              .handler([](Invocation& inv) -> Result {
                Result r(inv.input(0).share());
                io::ImsaveOptions opt;
                opt.quality = static_cast<int>(inv.integer("quality"));
                opt.check_contrast = inv.flag("check_contrast");
                opt.compression = inv.string("compression");
                const auto tile = inv.ints("tile");
                if (tile.size() != 2)
                  throw InvalidArgument(inv.name() + ": argument 'tile' must be rows,cols, got " +
                                        std::to_string(tile.size()) + " values");
                opt.tile = {tile[0], tile[1]};
                opt.bigtiff = inv.flag("bigtiff");
                r.save_options = opt;
                return r;
              }));
}

}  // namespace cuskimage::cli
