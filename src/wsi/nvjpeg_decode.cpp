// Batched nvJPEG decode of slide tiles straight into device memory (builds with CUSK_HAVE_NVJPEG).
//
// Per batch: the host merges each abbreviated tile stream with its level's JPEGTables (a complete
// JFIF-less JPEG), then one nvjpegDecodeBatched call decodes every tile, with the hardware JPEG
// engines (NVJPG, present on A100/H100/H200) when nvJPEG offers that backend, else its default
// GPU/hybrid backend, writing interleaved RGB rows at the caller's pitch: whole tiles land
// directly in the output array, partial tiles in scratch tiles that are then cropped with one
// cudaMemcpy2DAsync each. Bytes moved: compressed tiles host->device (~10-20 KB per 256² tile)
// plus 196 KB of RGB written per tile; the floor is the decoder engines' throughput, not HBM.
// nvJPEG's IDCT and chroma upsampling differ from libjpeg's, so pixels differ slightly from the
// CPU path (tests state the tolerance).
#include "src/wsi/wsi_detail.hpp"

#if CUSK_HAVE_NVJPEG
#include <cuda_runtime.h>
#include <nvjpeg.h>

#include <map>

namespace cuskimage::wsi::detail {
namespace {

struct Context {
  nvjpegHandle_t handle = nullptr;
  nvjpegJpegState_t state = nullptr;
  int batch = 0;
  std::mutex mu;  // an nvJPEG state decodes one batch at a time
};

std::string status_text(nvjpegStatus_t s) { return "nvJPEG status " + std::to_string(static_cast<int>(s)); }

Context& context(int device) {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<Context>> contexts;
  std::lock_guard lock(mu);
  auto& c = contexts[device];
  if (!c) {
    c = std::make_unique<Context>();
    if (nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, 0, &c->handle) != NVJPEG_STATUS_SUCCESS) {
      c->handle = nullptr;
      if (nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, 0, &c->handle) != NVJPEG_STATUS_SUCCESS)
        throw NotSupported("wsi: nvJPEG could not be initialised on cuda:" + std::to_string(device));
    }
    if (nvjpegJpegStateCreate(c->handle, &c->state) != NVJPEG_STATUS_SUCCESS)
      throw NotSupported("wsi: nvJPEG state could not be created on cuda:" + std::to_string(device));
  }
  return *c;
}

}  // namespace


void nvjpeg_decode_batch(int device, const std::vector<std::vector<unsigned char>>& streams,
                         const std::vector<unsigned char*>& dst, const std::vector<std::size_t>& pitch, cudaStream_t stream) {
  if (streams.empty()) return;
  Context& c = context(device);
  std::lock_guard lock(c.mu);
  const int n = static_cast<int>(streams.size());
  if (c.batch != n) {
    const nvjpegStatus_t s = nvjpegDecodeBatchedInitialize(c.handle, c.state, n, 1, NVJPEG_OUTPUT_RGBI);
    if (s != NVJPEG_STATUS_SUCCESS) throw NotSupported("wsi: nvjpegDecodeBatchedInitialize failed: " + status_text(s));
    c.batch = n;
  }
  std::vector<const unsigned char*> data(n);
  std::vector<std::size_t> lengths(n);
  std::vector<nvjpegImage_t> images(n);
  for (int i = 0; i < n; ++i) {
    data[i] = streams[i].data();
    lengths[i] = streams[i].size();
    images[i] = nvjpegImage_t{};
    images[i].channel[0] = dst[i];
    images[i].pitch[0] = pitch[i];
  }
  const nvjpegStatus_t s = nvjpegDecodeBatched(c.handle, c.state, data.data(), lengths.data(), images.data(), stream);
  if (s != NVJPEG_STATUS_SUCCESS) {
    c.batch = 0;  // re-initialise next time
    throw FormatError("wsi: nvJPEG could not decode a tile batch: " + status_text(s));
  }
}

}  // namespace cuskimage::wsi::detail
#endif
