// Tile records: run-length + deflate packing of the core labels and the checkpoint file format
// (magic, version, geometry, per-object sums, border lines, packed labels), written atomically.
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cuskimage/error.hpp"
#include "src/tiled/tiled_detail.hpp"

namespace cuskimage::tiled::detail {
namespace {

constexpr char kMagic[8] = {'C', 'U', 'S', 'K', 'T', 'I', 'L', 'E'};
constexpr std::uint32_t kVersion = 3;  // 2: labels packed as runs (pack_labels); 3: object keys

template <class T>
void put(std::string& out, const std::vector<T>& v) {
  const std::uint64_t n = v.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  if (n > 0) out.append(reinterpret_cast<const char*>(v.data()), n * sizeof(T));
}
template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

struct Reader {
  const std::string& s;
  std::size_t at = 0;
  bool ok = true;
  template <class T>
  T get() {
    T v{};
    if (at + sizeof v > s.size()) {
      ok = false;
      return v;
    }
    std::memcpy(&v, s.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  template <class T>
  void get(std::vector<T>& v, bool keep = true) {
    const auto n = get<std::uint64_t>();
    if (!ok || n > (s.size() - at) / sizeof(T)) {
      ok = false;
      return;
    }
    if (keep) {
      v.resize(n);
      if (n > 0) std::memcpy(v.data(), s.data() + at, n * sizeof(T));  // an empty vector's data() may be null
    }
    at += n * sizeof(T);
  }
};

}  // namespace

std::vector<unsigned char> deflate_bytes(const void* data, std::size_t bytes, int level) {
  uLongf cap = compressBound(static_cast<uLong>(bytes));
  std::vector<unsigned char> out(cap);
  if (compress2(out.data(), &cap, static_cast<const Bytef*>(data), static_cast<uLong>(bytes), level) != Z_OK)
    throw std::runtime_error("tiled: deflate failed");
  out.resize(cap);
  return out;
}

std::vector<unsigned char> pack_labels(const std::int32_t* labels, std::size_t n) {
  std::vector<std::uint32_t> runs;  // value, length, value, length, ...
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && labels[j] == labels[i]) ++j;
    runs.push_back(static_cast<std::uint32_t>(labels[i]));
    runs.push_back(static_cast<std::uint32_t>(j - i));
    i = j;
  }
  return deflate_bytes(runs.data(), runs.size() * sizeof(std::uint32_t), 1);
}

void unpack_labels(const std::vector<unsigned char>& packed, std::int32_t* out, std::size_t n) {
  // Inflate with a growing buffer (the run count is not stored), then expand the runs.
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw FormatError("tiled: inflateInit failed");
  thread_local std::vector<std::uint32_t> runs;  // reused: no allocation per tile
  runs.resize(std::max<std::size_t>({runs.size(), packed.size(), 1024}));
  z.next_in = const_cast<Bytef*>(packed.data());
  z.avail_in = static_cast<uInt>(packed.size());
  std::size_t have = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (have == runs.size() * sizeof(std::uint32_t)) runs.resize(runs.size() * 2);
    z.next_out = reinterpret_cast<Bytef*>(runs.data()) + have;
    z.avail_out = static_cast<uInt>(runs.size() * sizeof(std::uint32_t) - have);
    rc = inflate(&z, Z_NO_FLUSH);
    have = runs.size() * sizeof(std::uint32_t) - z.avail_out;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END || have % 8 != 0) throw FormatError("tiled: a tile's packed labels are corrupt");
  std::size_t at = 0;
  for (std::size_t k = 0; k < have / 4; k += 2) {
    const std::size_t len = runs[k + 1];
    if (len > n - at) throw FormatError("tiled: a tile's packed labels are corrupt");
    std::fill_n(out + at, len, static_cast<std::int32_t>(runs[k]));
    at += len;
  }
  if (at != n) throw FormatError("tiled: a tile's packed labels are corrupt");
}

void write_record(const std::string& path, const TileRecord& r) {
  std::string s(kMagic, sizeof kMagic);
  put(s, kVersion);
  put(s, r.index);
  put(s, r.x);
  put(s, r.y);
  put(s, r.width);
  put(s, r.height);
  const LocalObjects& o = r.objects;
  for (const auto* v : {&o.area, &o.first, &o.sum_y, &o.sum_x, &o.min_y, &o.min_x, &o.max_y, &o.max_x}) put(s, *v);
  put(s, o.sum_i);
  put(s, o.key);
  for (const auto* v : {&r.top, &r.bottom, &r.left, &r.right}) put(s, *v);
  put(s, r.packed);
  put(s, static_cast<std::uint64_t>(s.size()));  // trailer: a complete file ends with its length
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(s.data(), static_cast<std::streamsize>(s.size()));
    if (!f) throw FormatError("tiled: cannot write checkpoint " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

bool read_record(const std::string& path, TileRecord& r, bool with_labels) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  const std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (s.size() < sizeof kMagic + 8 || std::memcmp(s.data(), kMagic, sizeof kMagic) != 0) return false;
  std::uint64_t len = 0;
  std::memcpy(&len, s.data() + s.size() - 8, 8);
  if (len != s.size() - 8) return false;
  Reader in{s, sizeof kMagic};
  if (in.get<std::uint32_t>() != kVersion) return false;
  r.index = in.get<std::int64_t>();
  r.x = in.get<std::int64_t>();
  r.y = in.get<std::int64_t>();
  r.width = in.get<std::int64_t>();
  r.height = in.get<std::int64_t>();
  LocalObjects& o = r.objects;
  for (auto* v : {&o.area, &o.first, &o.sum_y, &o.sum_x, &o.min_y, &o.min_x, &o.max_y, &o.max_x}) in.get(*v);
  in.get(o.sum_i);
  in.get(o.key);
  for (auto* v : {&r.top, &r.bottom, &r.left, &r.right}) in.get(*v);
  in.get(r.packed, with_labels);
  return in.ok;
}

}  // namespace cuskimage::tiled::detail
