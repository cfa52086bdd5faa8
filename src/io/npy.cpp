// NPY: NumPy's array file format (numpy.lib.format), read in versions 1.0, 2.0 and 3.0 and written
// as version 1.0, byte for byte what np.save writes for the same array.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <optional>
#include <vector>

#include "src/io/io_detail.hpp"

namespace cuskimage::io::detail {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

struct Header {
  DType dtype = DType::uint8;
  bool big_endian = false;
  bool fortran = false;
  Shape shape;
};

// Parser for the header: a Python dict literal such as
//   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  Header parse() {
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<Shape> shape;
    skip_ws();
    expect_char('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = parse_string();
      skip_ws();
      expect_char(':');
      skip_ws();
      if (key == "descr") {
        if (peek() == '[') bad("structured dtypes (a 'descr' list) are not supported");
        if (peek() == '{') bad("dtypes given as a dict are not supported");
        descr = parse_string();
      } else if (key == "fortran_order") {
        fortran = parse_bool();
      } else if (key == "shape") {
        shape = parse_shape();
      } else {
        bad("unexpected key '" + key + "' in header");
      }
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip_ws();
      if (peek() != '}') bad("malformed header (expected ',' or '}')");
    }
    if (!descr || !fortran || !shape) bad("header lacks one of 'descr', 'fortran_order', 'shape'");
    Header h;
    h.fortran = *fortran;
    h.shape = *shape;
    parse_descr(*descr, h);
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) { format_error(kRead, path_, "invalid NPY header: " + what); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  [[noreturn]] void unsupported(const std::string& d, const std::string& kind) {
    format_error(kRead, path_, "NPY dtype '" + d + "' (" + kind + ") is not supported");
  }
  void expect_char(char c) {
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string parse_string() {
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) out += s_[i_++];
    expect_char(q);
    return out;
  }
  bool parse_bool() {
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    bad("'fortran_order' must be True or False");
  }
  Shape parse_shape() {
    expect_char('(');
    Shape shape;
    for (;;) {
      skip_ws();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("'shape' must be a tuple of non-negative integers");
      std::int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (INT64_MAX - 9) / 10) bad("'shape' extent too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (peek() == 'L') ++i_;  // Python 2 long literals
      shape.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip_ws();
      if (peek() != ')') bad("malformed 'shape' tuple");
    }
    expect_char(')');
    if (shape.size() > 64) bad("too many dimensions");
    return shape;
  }
  void parse_descr(const std::string& d, Header& h) {
    std::string_view t = d;
    char order = '|';
    if (!t.empty() && (t[0] == '<' || t[0] == '>' || t[0] == '=' || t[0] == '|')) order = t[0], t.remove_prefix(1);
    if (t == "?") t = "b1";
    if (t.empty()) bad("empty 'descr'");
    const char kind = t[0];
    int size = 0;
    for (char c : t.substr(1)) {
      if (!std::isdigit(static_cast<unsigned char>(c))) unsupported(d, "unknown type code");
      size = size * 10 + (c - '0');
      if (size > 1 << 20) unsupported(d, "unknown type code");
    }
    switch (kind) {
      case 'b':
        if (size != 1) unsupported(d, "unknown type code");
        h.dtype = DType::bool_;
        break;
      case 'u':
      case 'i': {
        const bool s = kind == 'i';
        if (size == 1) h.dtype = s ? DType::int8 : DType::uint8;
        else if (size == 2) h.dtype = s ? DType::int16 : DType::uint16;
        else if (size == 4) h.dtype = s ? DType::int32 : DType::uint32;
        else if (size == 8) h.dtype = s ? DType::int64 : DType::uint64;
        else unsupported(d, "integer of unsupported size");
        break;
      }
      case 'f':
        if (size == 4) h.dtype = DType::float32;
        else if (size == 8) h.dtype = DType::float64;
        else unsupported(d, size == 2 ? "float16" : "floating point of unsupported size");
        break;
      case 'c': unsupported(d, "complex");
      case 'O': unsupported(d, "object");
      case 'S':
      case 'a':
      case 'U': unsupported(d, "string");
      case 'V': unsupported(d, "void/structured");
      case 'M':
      case 'm': unsupported(d, "datetime");
      default: unsupported(d, "unknown type code");
    }
    h.big_endian = order == '>' && itemsize(h.dtype) > 1;
    if (order == '=' || order == '|') h.big_endian = std::endian::native == std::endian::big && itemsize(h.dtype) > 1;
  }

  std::string_view s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

void byteswap_inplace(void* data, std::size_t count, std::size_t item) {
  auto* p = static_cast<unsigned char*>(data);
  for (std::size_t i = 0; i < count; ++i, p += item) std::reverse(p, p + item);
}

std::string descr_of(DType dt) {
  switch (dt) {
    case DType::bool_: return "|b1";
    case DType::uint8: return "|u1";
    case DType::int8: return "|i1";
    case DType::uint16: return "<u2";
    case DType::int16: return "<i2";
    case DType::uint32: return "<u4";
    case DType::int32: return "<i4";
    case DType::uint64: return "<u8";
    case DType::int64: return "<i8";
    case DType::float32: return "<f4";
    case DType::float64: return "<f8";
  }
  return "?";
}

}  // namespace

Array read_npy(const std::string& path) {
  File f = File::open_read(kRead, path);
  const std::uint64_t file_size = f.size();
  unsigned char pre[12];
  if (file_size < 10) format_error(kRead, path, "truncated NPY file (" + std::to_string(file_size) + " bytes, no complete header)");
  f.read_exact(pre, 10, kRead, path, "NPY preamble");
  if (std::memcmp(pre, kMagic, 6) != 0) format_error(kRead, path, "not an NPY file (bad magic string)");
  const int major = pre[6];
  std::uint64_t header_len = 0, header_start = 10;
  if (major == 1) {
    header_len = pre[8] | (std::uint64_t(pre[9]) << 8);
  } else if (major == 2 || major == 3) {
    f.read_exact(pre + 10, 2, kRead, path, "NPY preamble");
    header_len = pre[8] | (std::uint64_t(pre[9]) << 8) | (std::uint64_t(pre[10]) << 16) | (std::uint64_t(pre[11]) << 24);
    header_start = 12;
  } else {
    format_error(kRead, path, "unsupported NPY format version " + std::to_string(major) + "." + std::to_string(pre[7]));
  }
  if (header_start + header_len > file_size)
    format_error(kRead, path, "truncated NPY file (header of " + std::to_string(header_len) + " bytes, file has " +
                                  std::to_string(file_size) + " bytes)");
  std::string text(header_len, '\0');
  f.read_exact(text.data(), header_len, kRead, path, "NPY header");
  const Header h = HeaderParser(text, path).parse();

  // Total size without overflow.
  std::uint64_t count = 1;
  bool zero = false;
  for (auto e : h.shape) {
    if (e == 0) zero = true;
    else if (!zero && count > (std::uint64_t(1) << 62) / static_cast<std::uint64_t>(e))
      format_error(kRead, path, "NPY shape " + shape_str(h.shape) + " is too large");
    else if (!zero) count *= static_cast<std::uint64_t>(e);
  }
  if (zero) count = 0;
  const std::size_t item = itemsize(h.dtype);
  const std::uint64_t nbytes = count * item;
  const std::uint64_t available = file_size - header_start - header_len;
  if (nbytes > available)
    format_error(kRead, path, "truncated NPY data (shape " + shape_str(h.shape) + " of " +
                                  std::string(dtype_name(h.dtype)) + " needs " + std::to_string(nbytes) +
                                  " bytes, file has " + std::to_string(available) + ")");

  // Fortran order: the bytes are the C-order array of the reversed shape, transposed.
  Shape stored = h.shape;
  if (h.fortran) std::reverse(stored.begin(), stored.end());
  Array a = Array::empty(stored, h.dtype);
  f.read_exact(a.data(), nbytes, kRead, path, "NPY data");
  if (h.big_endian) byteswap_inplace(a.data(), count, item);
  if (h.dtype == DType::bool_) {
    auto* p = static_cast<unsigned char*>(a.data());
    for (std::uint64_t i = 0; i < count; ++i) p[i] = p[i] != 0;
  }
  if (h.fortran && stored.size() > 1) {
    std::vector<int> axes(stored.size());
    for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int>(axes.size() - 1 - i);
    return a.transpose(axes).copy();
  }
  return a;
}

void write_npy(const std::string& path, const std::string& out_path, const Array& a) {
  if (std::endian::native != std::endian::little)
    throw NotSupported("io.imsave: writing NPY on a big-endian host is not supported ('" + path + "')");
  // The header exactly as numpy.lib.format writes it (sorted keys, repr of the shape tuple, room to
  // grow the first axis, padded with spaces so the data starts at a multiple of 64 bytes).
  std::string shape = "(";
  for (std::size_t i = 0; i < a.shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape()[i]);
  if (a.shape().size() == 1) shape += ",";
  shape += ")";
  std::string header = "{'descr': '" + descr_of(a.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  if (!a.shape().empty()) {
    const std::size_t digits = std::to_string(a.shape()[0]).size();
    if (digits < 21) header.append(21 - digits, ' ');
  }
  const std::size_t hlen = header.size() + 1;
  const std::size_t padlen = 64 - ((6 + 2 + 2 + hlen) % 64);
  header.append(padlen, ' ');
  header += '\n';
  if (header.size() > 65535) throw InvalidArgument("io.imsave: argument 'image' has too many dimensions for NPY ('" + path + "')");
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<unsigned char>(header.size() & 0xff),
                           static_cast<unsigned char>(header.size() >> 8)};
  File f = File::open_write(kSave, out_path);
  f.write_all(pre, sizeof pre, kSave, path);
  f.write_all(header.data(), header.size(), kSave, path);
  f.write_all(a.data(), a.nbytes(), kSave, path);
  f.finish(kSave, path);
}

}  // namespace cuskimage::io::detail
