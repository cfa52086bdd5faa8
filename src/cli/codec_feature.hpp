// Codecs of the feature module's option types shared by its command files.
#pragma once

#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

/// exclude_border: "true", "false", one width or one per axis ("2" or "2,3,0").
template <>
struct Codec<feature::ExcludeBorder> {
  static constexpr Kind kind = Kind::string;
  static std::string format(const feature::ExcludeBorder& v) {
    if (!v.widths) return "true";
    std::vector<std::string> items;
    for (auto w : *v.widths) items.push_back(std::to_string(w));
    return format_list(items);
  }
  static feature::ExcludeBorder read(Invocation& inv, const std::string& name) {
    const std::string s = inv.string(name);
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
    std::vector<std::int64_t> w;
    std::size_t pos = 0;
    try {
      while (pos <= s.size()) {
        const std::size_t end = std::min(s.find(',', pos), s.size());
        w.push_back(std::stoll(s.substr(pos, end - pos)));
        pos = end + 1;
      }
    } catch (const std::exception&) {
      throw UsageError(inv.name() + ": parameter '--" + name + "' expects true, false or widths (2 or 2,3), got '" +
                       s + "'");
    }
    return w;
  }
};

}  // namespace cuskimage::cli
