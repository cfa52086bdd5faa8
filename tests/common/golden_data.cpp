// Golden files: tests/golden/data/<case>/<name> when that file exists (goldens not packed yet),
// otherwise entry <name> of tests/golden/data/<case>.npz, a zip archive as np.savez_compressed
// writes (tests/golden/pack_golden.py). Archives keep the committed data small: thousands of tiny
// files cost a disk block each, and the GPU host's copy of the tree is size-limited.
//
// An archive entry is written once per process to the build's test tmp dir and that path returned:
// tests hand golden paths to the CLI and to io functions, and io reads files only.
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "tests/common/test_support.hpp"

namespace cusktest {
namespace {

namespace fs = std::filesystem;

std::uint32_t u16(const unsigned char* p) { return p[0] | static_cast<std::uint32_t>(p[1]) << 8; }
std::uint32_t u32(const unsigned char* p) { return u16(p) | u16(p + 2) << 16; }
std::uint64_t u64(const unsigned char* p) { return u32(p) | static_cast<std::uint64_t>(u32(p + 4)) << 32; }

constexpr std::uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr std::uint32_t kZip64LocatorSig = 0x07064b50, kZip64EndSig = 0x06064b50;
constexpr std::uint32_t kMax32 = 0xFFFFFFFFu;

struct Entry {
  std::uint32_t method = 0, crc = 0;
  std::uint64_t csize = 0, usize = 0, header = 0;  // header: offset of the local file header
};

/// A zip archive read whole into memory with its central directory indexed by entry name.
class Archive {
 public:
  explicit Archive(std::string path) : path_(std::move(path)) {
    std::ifstream f(path_, std::ios::binary);
    if (!f) fail("cannot open");
    bytes_.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    index();
  }

  const std::string& path() const { return path_; }
  std::size_t size() const { return entries_.size(); }
  bool has(const std::string& name) const { return entries_.count(name) != 0; }

  /// The entry's uncompressed bytes, CRC-checked.
  std::vector<unsigned char> read(const std::string& name) const {
    const Entry& e = entries_.at(name);
    const unsigned char* h = at(e.header, 30, name);
    if (u32(h) != kLocalSig) fail("entry '" + name + "': bad local header");
    const unsigned char* src = at(e.header + 30 + u16(h + 26) + u16(h + 28), e.csize, name);
    if (e.usize > UINT_MAX || e.csize > UINT_MAX) fail("entry '" + name + "': too large");
    std::vector<unsigned char> out(e.usize);
    if (e.method == 0) {  // STORED
      if (e.csize != e.usize) fail("entry '" + name + "': stored sizes differ");
      std::copy(src, src + e.usize, out.begin());
    } else if (e.method == 8) {  // DEFLATE: a raw stream, no zlib header (windowBits -15)
      unsigned char none = 0;  // zlib refuses a null output pointer, even for nothing to write
      z_stream z{};
      if (inflateInit2(&z, -15) != Z_OK) fail("entry '" + name + "': inflateInit2 failed");
      z.next_in = const_cast<unsigned char*>(src);
      z.avail_in = static_cast<uInt>(e.csize);
      z.next_out = out.empty() ? &none : out.data();
      z.avail_out = static_cast<uInt>(e.usize);
      const int r = inflate(&z, Z_FINISH);
      const std::uint64_t produced = z.total_out;
      inflateEnd(&z);
      if (r != Z_STREAM_END || produced != e.usize) fail("entry '" + name + "': corrupt DEFLATE data");
    } else {
      fail("entry '" + name + "': compression method " + std::to_string(e.method) + " (only STORED and DEFLATE)");
    }
    if (crc32(0, out.empty() ? nullptr : out.data(), static_cast<uInt>(out.size())) != e.crc)
      fail("entry '" + name + "': CRC mismatch");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("golden archive '" + path_ + "': " + what);
  }

  const unsigned char* at(std::uint64_t offset, std::uint64_t n, const std::string& what) const {
    if (offset > bytes_.size() || n > bytes_.size() - offset) fail("truncated (" + what + ")");
    return bytes_.data() + offset;
  }

  /// Finds the end-of-central-directory record (zip64 when its fields overflow) and reads every
  /// central directory entry. Sizes come from the central directory: np.savez writes local
  /// headers with zip64 placeholders.
  void index() {
    const std::size_t n = bytes_.size();
    if (n < 22) fail("not a zip archive (too short)");
    std::size_t end = n - 22;
    const std::size_t lowest = n - 22 > 0xFFFF ? n - 22 - 0xFFFF : 0;  // the comment is at most 64 KiB
    while (u32(bytes_.data() + end) != kEndSig) {
      if (end == lowest) fail("not a zip archive (no end of central directory)");
      --end;
    }
    const unsigned char* e = bytes_.data() + end;
    std::uint64_t count = u16(e + 10), cd_size = u32(e + 12), cd_offset = u32(e + 16);
    if (count == 0xFFFF || cd_size == kMax32 || cd_offset == kMax32) {
      if (end < 20 || u32(e - 20) != kZip64LocatorSig) fail("zip64 end locator missing");
      const unsigned char* z = at(u64(e - 20 + 8), 56, "zip64 end record");
      if (u32(z) != kZip64EndSig) fail("bad zip64 end record");
      count = u64(z + 32), cd_size = u64(z + 40), cd_offset = u64(z + 48);
    }
    const unsigned char* p = at(cd_offset, cd_size, "central directory");
    const unsigned char* const stop = p + cd_size;
    for (std::uint64_t i = 0; i < count; ++i) {
      if (stop - p < 46 || u32(p) != kCentralSig) fail("corrupt central directory");
      const std::uint32_t name_len = u16(p + 28), extra_len = u16(p + 30), comment_len = u16(p + 32);
      if (static_cast<std::uint64_t>(stop - p) < 46ull + name_len + extra_len + comment_len)
        fail("corrupt central directory");
      if (u16(p + 8) & 1) fail("encrypted entries are not supported");
      Entry en;
      en.method = u16(p + 10), en.crc = u32(p + 16), en.csize = u32(p + 20), en.usize = u32(p + 24);
      en.header = u32(p + 42);
      read_zip64_extra(p + 46 + name_len, extra_len, en);
      entries_.emplace(std::string(reinterpret_cast<const char*>(p + 46), name_len), en);
      p += 46 + name_len + extra_len + comment_len;
    }
  }

  /// The zip64 extra field holds, in this order, each of usize, csize and the header offset whose
  /// 32-bit field reads 0xFFFFFFFF.
  void read_zip64_extra(const unsigned char* x, std::uint32_t len, Entry& en) const {
    for (std::uint32_t i = 0; i + 4 <= len;) {
      const std::uint32_t id = u16(x + i), size = u16(x + i + 2);
      if (i + 4 + size > len) fail("corrupt extra field");
      if (id == 1) {
        const unsigned char* v = x + i + 4;
        std::uint32_t k = 0;
        for (std::uint64_t* f : {&en.usize, &en.csize, &en.header}) {
          if (*f != kMax32) continue;
          if (k + 8 > size) fail("corrupt zip64 extra field");
          *f = u64(v + k), k += 8;
        }
      }
      i += 4 + size;
    }
  }

  std::string path_;
  std::vector<unsigned char> bytes_;
  std::map<std::string, Entry> entries_;
};

std::string data_dir() { return CUSK_TEST_DATA_DIR; }
std::string archive_path(const std::string& case_name) { return data_dir() + "/" + case_name + ".npz"; }

std::mutex g_mutex;
std::map<std::string, std::unique_ptr<Archive>> g_archives;  // by case; null: no archive
std::map<std::string, std::string> g_extracted;              // relative -> extracted path

/// The case's archive (parsed once), or null when it has none. Call with g_mutex held.
const Archive* archive_for(const std::string& case_name) {
  auto it = g_archives.find(case_name);
  if (it == g_archives.end()) {
    const std::string p = archive_path(case_name);
    it = g_archives.emplace(case_name, fs::is_regular_file(p) ? std::make_unique<Archive>(p) : nullptr).first;
  }
  return it->second.get();
}

/// Writes the entry under the test tmp dir (a temporary name renamed into place, so concurrent
/// test processes never see a partial file) and returns its path.
std::string extract(const Archive& a, const std::string& case_name, const std::string& entry) {
  const fs::path out = fs::path(CUSK_TEST_TMP_DIR) / "golden" / case_name / entry;
  fs::create_directories(out.parent_path());
  const std::vector<unsigned char> bytes = a.read(entry);
  const fs::path part = out.string() + ".part-" + std::to_string(::getpid());
  {
    std::ofstream f(part, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f.flush()) throw std::runtime_error("golden: cannot write '" + part.string() + "'");
  }
  fs::rename(part, out);
  return out.string();
}

}  // namespace

std::string golden_path(const std::string& relative) {
  const std::string direct = data_dir() + "/" + relative;
  if (fs::is_regular_file(direct)) return direct;
  const std::size_t slash = relative.find('/');
  if (slash == std::string::npos) return direct;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (auto it = g_extracted.find(relative); it != g_extracted.end()) return it->second;
  const std::string case_name = relative.substr(0, slash), entry = relative.substr(slash + 1);
  const Archive* a = archive_for(case_name);
  if (a == nullptr || !a->has(entry)) return direct;  // absent: a path that does not exist
  return g_extracted[relative] = extract(*a, case_name, entry);
}

Array load_golden(const std::string& relative) {
  const std::string p = golden_path(relative);
  if (fs::exists(p)) return cuskimage::io::imread(p);
  const std::size_t slash = relative.find('/');
  std::string msg = "golden '" + relative + "' not found: no file " + data_dir() + "/" + relative;
  if (slash != std::string::npos) {
    const std::string case_name = relative.substr(0, slash);
    const std::lock_guard<std::mutex> lock(g_mutex);
    const Archive* a = archive_for(case_name);
    msg += a == nullptr ? " and no archive " + archive_path(case_name)
                        : " and no entry '" + relative.substr(slash + 1) + "' in " + a->path() + " (" +
                              std::to_string(a->size()) + " entries)";
  }
  throw std::runtime_error(msg);
}

}  // namespace cusktest
