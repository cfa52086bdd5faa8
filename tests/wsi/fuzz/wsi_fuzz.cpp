// libFuzzer target over Slide::open + read_region + associated images (the file's bytes are the
// input). Built and run for a bounded time by scripts/fuzz-wsi, which CTest runs as `wsi.fuzz`
// (tests/CMakeLists.txt) from the seed corpus in corpus/ (small slides of each layout: JPEG, SVS,
// BigTIFF Deflate, LZW SubIFDs, uncompressed grey, tifffile strips and SubIFD pyramid). Any
// exception other than FormatError / NotSupported, a crash, a sanitizer report, a hang or an
// allocation past the RSS limit is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "cuskimage/wsi.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/cusk_wsi_fuzz_" + std::to_string(::getpid()) + ".tif";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    const auto s = cuskimage::wsi::Slide::open(path, {.cache_bytes = 1 << 20});
    for (int l = 0; l < s.level_count(); ++l) s.read_region(-5, -5, l, 300, 300);
    for (const auto& name : s.associated_image_names()) s.read_associated_image(name);
  } catch (const cuskimage::FormatError&) {
  } catch (const cuskimage::NotSupported&) {
  }
  return 0;
}
