// Consumer of the installed package: builds with a plain host compiler against the installed
// headers and library, runs on the GPU when one is present, else on the CPU backend.
#include <cstdio>

#include <cuskimage/cuskimage.hpp>

namespace csk = cuskimage;

int main() {
  const csk::Device dev = csk::default_device();
  csk::Array img = csk::Array::full({64, 48}, 200, csk::DType::uint8).to(dev);
  csk::Array inv = csk::util::invert(img);
  csk::Array f = csk::util::img_as_float32(inv);
  const auto values = f.to_vector<float>();
  // scikit-image multiplies by float32(1 / 255) (not a division): 55 * that, rounded to float32.
  const float expected = 55.0f * static_cast<float>(1.0 / 255.0);
  std::printf("cuskimage %s on %s: invert(200) as float32 = %.6f\n", csk::version, dev.str().c_str(), values[0]);
  return values[0] == expected && values.back() == expected ? 0 : 1;
}
