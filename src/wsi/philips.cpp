// Philips TIFF: the ImageDescription of directory 0 is a DPUfsImport XML document. Its attributes
// become philips.* properties as OpenSlide names them (the WSI scanned image's attributes at top
// level, nested sequences as NAME[i].CHILD), the pixel spacing gives mpp, the pixel-data
// representations give the level downsamples, and LABELIMAGE / MACROIMAGE scanned images carry
// base64 JPEG associated images. A small XML reader suffices: the documents are machine-written.
#include <cstring>

#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::wsi::detail {
namespace {

struct Node {
  std::string name, text;
  std::map<std::string, std::string> attrs;
  std::vector<Node> children;
  const Node* child(const std::string& n) const {
    for (const auto& c : children)
      if (c.name == n) return &c;
    return nullptr;
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string_view s) : s_(s) {}
  bool parse(Node& root) {
    skip_misc();
    return element(root, 0) ;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;

  static std::string unescape(std::string_view v) {
    std::string out;
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (v[k] != '&') {
        out += v[k];
        continue;
      }
      const auto semi = v.find(';', k);
      if (semi == std::string_view::npos) return out + std::string(v.substr(k));
      const std::string_view e = v.substr(k + 1, semi - k - 1);
      if (e == "quot") out += '"';
      else if (e == "amp") out += '&';
      else if (e == "lt") out += '<';
      else if (e == "gt") out += '>';
      else if (e == "apos") out += '\'';
      else if (!e.empty() && e[0] == '#') out += static_cast<char>(std::strtol(std::string(e.substr(e.size() > 1 && e[1] == 'x' ? 2 : 1)).c_str(), nullptr, e.size() > 1 && e[1] == 'x' ? 16 : 10));
      k = semi;
    }
    return out;
  }
  void skip_ws() {
    while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_])) ++i_;
  }
  void skip_misc() {  // declarations, comments, processing instructions
    for (;;) {
      skip_ws();
      if (s_.compare(i_, 2, "<?") == 0 || s_.compare(i_, 2, "<!") == 0) {
        const bool comment = s_.compare(i_, 4, "<!--") == 0;
        const auto e = s_.find(comment ? "-->" : ">", i_);
        if (e == std::string_view::npos) {
          i_ = s_.size();
          return;
        }
        i_ = e + (comment ? 3 : 1);
      } else {
        return;
      }
    }
  }
  std::string name() {
    const auto b = i_;
    while (i_ < s_.size() && !std::strchr(" \t\r\n/>=", s_[i_])) ++i_;
    return std::string(s_.substr(b, i_ - b));
  }
  bool element(Node& n, int depth) {
    if (depth > 64 || i_ >= s_.size() || s_[i_] != '<') return false;
    ++i_;
    n.name = name();
    if (n.name.empty()) return false;
    for (;;) {  // attributes
      skip_ws();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == '/') {
        i_ += 2;
        return true;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      const std::string key = name();
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != '=') return false;
      ++i_;
      skip_ws();
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) return false;
      const char q = s_[i_++];
      const auto e = s_.find(q, i_);
      if (e == std::string_view::npos) return false;
      n.attrs[key] = unescape(s_.substr(i_, e - i_));
      i_ = e + 1;
    }
    for (;;) {  // content
      const auto lt = s_.find('<', i_);
      if (lt == std::string_view::npos) return false;
      n.text += unescape(s_.substr(i_, lt - i_));
      i_ = lt;
      if (s_.compare(i_, 2, "</") == 0) {
        const auto gt = s_.find('>', i_);
        if (gt == std::string_view::npos) return false;
        i_ = gt + 1;
        return true;
      }
      if (s_.compare(i_, 2, "<!") == 0 || s_.compare(i_, 2, "<?") == 0) {
        skip_misc();
        continue;
      }
      n.children.emplace_back();
      if (!element(n.children.back(), depth + 1)) return false;
    }
  }
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// Standard base64 (whitespace ignored); empty on malformed input.
std::vector<unsigned char> base64(const std::string& s) {
  std::vector<unsigned char> out;
  unsigned v = 0;
  int bits = 0;
  for (char c : s) {
    int d;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    else if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    else if (c >= '0' && c <= '9') d = c - '0' + 52;
    else if (c == '+') d = 62;
    else if (c == '/') d = 63;
    else if (c == '=' || std::strchr(" \t\r\n", c)) continue;
    else return {};
    v = (v << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<unsigned char>(v >> bits));
    }
  }
  return out;
}

void add_attributes(const Node& object, const std::string& prefix, PhilipsInfo& info, int depth);

void add_attribute(const Node& a, const std::string& prefix, PhilipsInfo& info, int depth) {
  const auto it = a.attrs.find("Name");
  if (it == a.attrs.end() || depth > 16) return;
  const std::string& name = it->second;
  const Node* array = a.child("Array");
  if (!array) {
    info.properties[prefix + name] = trim(a.text);
    return;
  }
  int index = 0;
  for (const Node& obj : array->children) {
    if (obj.name != "DataObject") continue;
    if (name == "PIM_DP_SCANNED_IMAGES") {
      // The WSI image's attributes are the slide's; label and macro images are associated.
      std::string type, data;
      for (const Node& c : obj.children) {
        const auto n = c.attrs.find("Name");
        if (n == c.attrs.end()) continue;
        if (n->second == "PIM_DP_IMAGE_TYPE") type = trim(c.text);
        if (n->second == "PIM_DP_IMAGE_DATA") data = c.text;
      }
      if (type == "WSI") add_attributes(obj, prefix, info, depth + 1);
      else if (type == "LABELIMAGE" && !data.empty()) info.associated["label"] = base64(data);
      else if (type == "MACROIMAGE" && !data.empty()) info.associated["macro"] = base64(data);
    } else {
      if (name == "PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE" && prefix == "philips.") {
        for (const Node& c : obj.children)
          if (auto n = c.attrs.find("Name"); n != c.attrs.end() && n->second == "DICOM_PIXEL_SPACING") {
            const std::string t = trim(c.text);
            info.level_spacing.push_back(std::strtod(t.c_str() + (t.empty() || t[0] != '"' ? 0 : 1), nullptr));
          }
      }
      add_attributes(obj, prefix + name + "[" + std::to_string(index) + "].", info, depth + 1);
    }
    ++index;
  }
}

void add_attributes(const Node& object, const std::string& prefix, PhilipsInfo& info, int depth) {
  for (const Node& c : object.children)
    if (c.name == "Attribute") add_attribute(c, prefix, info, depth);
}

}  // namespace

bool is_philips(const std::string& software, const std::string& description) {
  return software.rfind("Philips", 0) == 0 && description.find("<DataObject") != std::string::npos &&
         description.find("DPUfsImport") != std::string::npos;
}

PhilipsInfo parse_philips(const std::string& description, const std::string& path) {
  Node root;
  XmlReader reader(description);
  if (!reader.parse(root) || root.name != "DataObject") format_error(path, "malformed Philips XML description");
  if (root.attrs["ObjectType"] != "DPUfsImport") format_error(path, "Philips XML description is not a DPUfsImport");
  PhilipsInfo info;
  add_attributes(root, "philips.", info, 0);
  return info;
}

}  // namespace cuskimage::wsi::detail
