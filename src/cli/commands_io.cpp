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
              .options<io::ImreadOptions>({"device"})  // --device
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                auto opt = inv.options<io::ImreadOptions>();
                opt.device = inv.device();
                return io::imread(inv.input_path(0), opt, inv.stream());
              }));

  reg.add(Command("io.imsave",
                  "Save the image ARR to FNAME; the format follows FNAME's extension (.tif/.tiff, .png, "
                  ".jpg/.jpeg, .npy).")
              .input("arr", "image to save")
              .options<io::ImsaveOptions>()
              .choices("compression", {"none", "deflate", "lzw", "jpeg"})
              .returns_image({"fname"})
              .handler([](Invocation& inv) -> Result {
                Result r(inv.input(0).share());
                r.save_options = inv.options<io::ImsaveOptions>();
                return r;
              }));
}

}  // namespace cuskimage::cli
