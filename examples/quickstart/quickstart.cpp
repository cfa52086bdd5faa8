// quickstart: a small util/io pipeline on the GPU when one is present, else on the CPU backend.
//
//   quickstart [IMAGE] [--out DIR] [--device cpu|cuda]
//
// Without IMAGE it uses an embedded default: a synthetic 1024x1024 fluorescence-like image (bright
// blobs on a dim gradient). It converts to float32, inverts, adds seeded Gaussian and salt & pepper
// noise, compares the noisy image with the clean one, tiles the steps into a montage and writes each
// result (PNG) to DIR, printing the time of each step.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <cuskimage/cuskimage.hpp>

namespace csk = cuskimage;

namespace {

csk::Array embedded_image() {
  const std::int64_t n = 1024;
  std::vector<std::uint8_t> px(n * n);
  // Deterministic blob centres on a jittered grid.
  std::uint32_t state = 12345;
  auto rnd = [&] { return (state = state * 1664525u + 1013904223u) / 4294967296.0; };
  struct Blob { double y, x, r, a; };
  std::vector<Blob> blobs;
  for (int gy = 0; gy < 12; ++gy)
    for (int gx = 0; gx < 12; ++gx)
      blobs.push_back({(gy + 0.2 + 0.6 * rnd()) * n / 12.0, (gx + 0.2 + 0.6 * rnd()) * n / 12.0, 10 + 18 * rnd(),
                       0.5 + 0.5 * rnd()});
  for (std::int64_t y = 0; y < n; ++y)
    for (std::int64_t x = 0; x < n; ++x) {
      double v = 0.08 + 0.12 * (x + y) / (2.0 * n);
      for (const Blob& b : blobs) {
        const double d2 = (y - b.y) * (y - b.y) + (x - b.x) * (x - b.x);
        if (d2 < 9 * b.r * b.r) v += b.a * std::exp(-d2 / (2 * b.r * b.r));
      }
      px[y * n + x] = static_cast<std::uint8_t>(std::lround(std::min(v, 1.0) * 255));
    }
  return csk::Array::from_vector(px, {n, n});
}

template <class F>
auto timed(const char* what, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = f();
  csk::Stream().synchronize();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  %-28s %8.3f ms\n", what, ms);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, out_dir = "quickstart-out";
  csk::Device device = csk::default_device();
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
      else if (a == "--device" && i + 1 < argc) device = csk::Device::parse(argv[++i]);
      else if (a == "-h" || a == "--help") {
        std::puts("usage: quickstart [IMAGE] [--out DIR] [--device cpu|cuda]");
        return 0;
      } else input = a;
    }
    if (device.is_cpu() && !csk::cuda_available())
      std::puts("No CUDA GPU found: running on the CPU backend.");
    std::printf("cuskimage %s, device %s, input %s\n", csk::version, device.str().c_str(),
                input.empty() ? "(embedded synthetic image)" : input.c_str());
    std::filesystem::create_directories(out_dir);

    csk::Array img = input.empty() ? embedded_image() : csk::io::imread(input, {.as_gray = false});
    if (img.ndim() == 3) img = img.index(2, 0).contiguous();  // first channel of a colour image
    img = timed("upload", [&] { return img.to(device); });
    csk::Array f = timed("img_as_float32", [&] { return csk::util::img_as_float32(img); });
    csk::Array inv = timed("invert", [&] { return csk::util::invert(f); });
    csk::Array noisy = timed("random_noise gaussian", [&] {
      return csk::util::random_noise(f, {.mode = csk::util::NoiseMode::gaussian, .rng = 7, .var = 0.005});
    });
    noisy = timed("random_noise s&p", [&] {
      return csk::util::random_noise(noisy, {.mode = csk::util::NoiseMode::s_and_p, .rng = 8, .amount = 0.02});
    });
    csk::Array diff = timed("compare_images diff", [&] { return csk::util::compare_images(f, noisy); });

    // Montage of the four steps (same dtype: float32).
    csk::Array stack = csk::Array::empty({4, f.shape(0), f.shape(1)}, csk::DType::float32, device);
    stack.index(0, 0).copy_from(f);
    stack.index(0, 1).copy_from(inv);
    stack.index(0, 2).copy_from(noisy);
    stack.index(0, 3).copy_from(diff);
    csk::Array m = timed("montage", [&] { return csk::util::montage(stack, {.fill = {1.0}, .padding_width = 8}); });

    auto save = [&](const char* name, const csk::Array& a) {
      const std::string path = out_dir + "/" + name;
      csk::io::imsave(path, csk::util::img_as_ubyte(a), {.check_contrast = false});
      std::printf("  wrote %s\n", path.c_str());
    };
    save("input.png", f);
    save("inverted.png", inv);
    save("noisy.png", noisy);
    save("difference.png", diff);
    save("montage.png", m);
    return 0;
  } catch (const csk::Error& e) {
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    return 1;
  }
}
