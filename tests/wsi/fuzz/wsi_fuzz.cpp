// libFuzzer target over Slide::open + read_region (the file's bytes are the input). Not part of the
// normal build (the tests glob only tests/wsi/*.cpp); build with clang, e.g.
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address -I include tests/wsi/fuzz/wsi_fuzz.cpp \
//     -L build/ -lcuskimage -o wsi_fuzz && ./wsi_fuzz -max_total_time=60 -rss_limit_mb=2048 corpus/
// (the library itself is best built with the same sanitizers for coverage). Any exception other
// than FormatError / NotSupported, a crash, a hang or an allocation past the RSS limit is a bug.
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
