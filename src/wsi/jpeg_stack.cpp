// Stacking JPEG tiles into one stream (see stack_jpeg_streams in wsi_detail.hpp): the GPU decoder
// pays a fixed cost per image, so device reads hand it columns of tiles instead of single tiles.
//
// Why the stack decodes to the tiles' own samples: a baseline scan is a raster of MCUs whose DC
// coefficients are coded as differences from the previous block of the component; a restart
// marker resets those predictors to 0 and byte-aligns the bit stream, which is exactly the state
// in which every tile's scan starts. With a restart interval of one tile's MCUs, tile i's
// entropy-coded bytes followed by RST(i mod 8) decode to tile i's MCU rows, placed below tile
// i-1's. Each 8x8 block's IDCT depends only on its own coefficients, so the component planes of
// the stack are the tiles' planes one below the other; chroma upsampling and colour conversion are
// then done per tile (ycc.hpp), never across a seam.
#include <algorithm>
#include <cstring>

#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::wsi::detail {

bool jpeg_layout(const unsigned char* p, std::size_t n, JpegLayout& out) {
  out = JpegLayout{};
  if (n < 4 || p[0] != 0xFF || p[1] != 0xD8 || p[n - 2] != 0xFF || p[n - 1] != 0xD9) return false;
  int components = 0, hmax = 0, vmax = 0;
  std::size_t i = 2;
  while (true) {
    if (i + 4 > n || p[i] != 0xFF) return false;
    while (i + 4 <= n && p[i + 1] == 0xFF) ++i;  // fill bytes
    if (i + 4 > n) return false;
    const unsigned m = p[i + 1];
    if (m == 0xD8 || m == 0xD9 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) return false;  // no standalone markers in a header
    const std::size_t len = (std::size_t(p[i + 2]) << 8) | p[i + 3];
    if (len < 2 || i + 2 + len > n) return false;
    const unsigned char* seg = p + i + 4;  // the segment's body
    if (m == 0xC0 || m == 0xC1) {          // baseline / extended sequential Huffman
      if (out.sof || len < 8 || seg[0] != 8) return false;
      out.sof = i;
      out.height = (seg[1] << 8) | seg[2];
      out.width = (seg[3] << 8) | seg[4];
      components = seg[5];
      if (components < 1 || components > 4 || len != 8 + 3 * std::size_t(components) || out.width == 0 || out.height == 0) return false;
      for (int c = 0; c < components; ++c) {
        const int h = seg[6 + 3 * c + 1] >> 4, v = seg[6 + 3 * c + 1] & 15;
        if (h < 1 || h > 4 || v < 1 || v > 4) return false;
        hmax = std::max(hmax, h), vmax = std::max(vmax, v);
      }
    } else if (m >= 0xC2 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
      return false;  // progressive, lossless, arithmetic-coded: not stacked
    } else if (m == 0xDD) {
      if (len != 4 || ((seg[0] << 8) | seg[1]) != 0) return false;  // the tile has restart markers of its own
    } else if (m == 0xDA) {
      if (!out.sof || len < 3 || seg[0] != components || len != 6 + 2 * std::size_t(components)) return false;
      out.sos = i;
      out.data = i + 2 + len;
      break;
    }
    i += 2 + len;
  }
  // One scan: the entropy-coded data runs to the final EOI with no marker inside (0xFF is followed
  // only by stuffed zeros or fill bytes).
  out.end = n - 2;
  for (const unsigned char* q = p + out.data; q < p + out.end;) {
    q = static_cast<const unsigned char*>(std::memchr(q, 0xFF, static_cast<std::size_t>(p + out.end - q)));
    if (!q) break;
    while (q + 1 < p + out.end && q[1] == 0xFF) ++q;
    if (q + 1 >= p + out.end) break;  // fill bytes before EOI
    if (q[1] != 0x00) return false;
    q += 2;
  }
  out.mcu_w = 8 * hmax;
  out.mcu_h = 8 * vmax;
  return true;
}

int jpeg_stack_interval(const JpegLayout& l) {
  if (l.mcu_w <= 0 || l.mcu_h <= 0 || l.height % l.mcu_h != 0) return 0;  // a partial MCU row would not line up
  const long mcus = static_cast<long>((l.width + l.mcu_w - 1) / l.mcu_w) * (l.height / l.mcu_h);
  return mcus > 0 && mcus <= 65535 ? static_cast<int>(mcus) : 0;
}

bool JpegStacker::begin(const std::vector<unsigned char>& tables, const unsigned char* tile, std::size_t n,
                        std::vector<unsigned char>& out) {
  count_ = 0;
  if (!jpeg_layout(tile, n, first_)) return false;
  interval_ = jpeg_stack_interval(first_);
  if (interval_ == 0) return false;
  header_.assign(tile, tile + first_.data);
  // As merge_jpeg_tables: the tables without their EOI, then the tile after its SOI.
  const bool merge = mergeable_tables(tables);
  const std::size_t prefix = merge ? tables.size() - 2 : 2;
  out.resize(prefix + (first_.sos - 2) + 6 + (n - 2 - first_.sos));
  unsigned char* o = out.data();
  std::memcpy(o, merge ? tables.data() : tile, prefix);
  o += prefix;
  std::memcpy(o, tile + 2, first_.sos - 2);
  height_at_ = prefix + first_.sof - 2 + 5;  // SOF: marker, length, precision, then the height
  o += first_.sos - 2;
  const unsigned char dri[6] = {0xFF, 0xDD, 0x00, 0x04, static_cast<unsigned char>(interval_ >> 8), static_cast<unsigned char>(interval_ & 0xFF)};
  std::memcpy(o, dri, 6);
  o += 6;
  std::memcpy(o, tile + first_.sos, n - 2 - first_.sos);  // the scan header and the entropy-coded data
  count_ = 1;
  return true;
}

bool JpegStacker::add(const unsigned char* tile, std::size_t n, std::vector<unsigned char>& out) {
  JpegLayout l;
  if (count_ == 0 || static_cast<std::size_t>(first_.height) * (count_ + 1) > 65535 || !jpeg_layout(tile, n, l) ||
      l.data != first_.data || std::memcmp(tile, header_.data(), first_.data) != 0)
    return false;  // another header (frame, scan, tables of its own): not the same encoding
  const std::size_t at = out.size(), len = n - 2 - first_.data;
  out.resize(at + 2 + len);
  out[at] = 0xFF;
  out[at + 1] = static_cast<unsigned char>(0xD0 + (count_ - 1) % 8);  // RST0 after the first tile, ... RST7, RST0
  std::memcpy(out.data() + at + 2, tile + first_.data, len);
  ++count_;
  return true;
}

std::size_t JpegStacker::finish(std::vector<unsigned char>& out) {
  if (count_ == 0) return 0;
  out.push_back(0xFF);
  out.push_back(0xD9);
  const auto h = static_cast<unsigned>(first_.height) * static_cast<unsigned>(count_);
  out[height_at_] = static_cast<unsigned char>(h >> 8);
  out[height_at_ + 1] = static_cast<unsigned char>(h & 0xFF);
  return count_;
}

bool stack_jpeg_streams(const std::vector<const std::vector<unsigned char>*>& in, std::vector<unsigned char>& out) {
  if (in.empty()) return false;
  JpegStacker st;
  if (!st.begin({}, in[0]->data(), in[0]->size(), out)) return false;
  for (std::size_t t = 1; t < in.size(); ++t)
    if (!st.add(in[t]->data(), in[t]->size(), out)) return false;
  return st.finish(out) == in.size();
}

}  // namespace cuskimage::wsi::detail
