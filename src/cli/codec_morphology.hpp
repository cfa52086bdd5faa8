// Codecs of skimage.morphology's keyword types on the command line (codec.hpp): footprints as
// array files, the boundary modes by the library's names, and the enumerations whose `none`
// value is scikit-image's None.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

/// An enumeration whose `Unset` value is scikit-image's None: `none` on the command line (the
/// other values by the library's names; Command::choices lists those a command accepts).
template <class E, E Unset, E (*FromName)(std::string_view), std::string_view (*Name)(E)>
struct NoneAsUnset {
  static constexpr Kind kind = Kind::choice;
  static std::string format(E v) { return v == Unset ? "none" : std::string(Name(v)); }
  static E read(Invocation& inv, const std::string& name) {
    return inv.has(name) ? FromName(inv.string(name)) : Unset;
  }
};

template <>
struct Codec<morphology::Decomposition>
    : NoneAsUnset<morphology::Decomposition, morphology::Decomposition::none, morphology::decomposition_from_name,
                  morphology::decomposition_name> {
  static std::vector<std::string> choices() { return {"sequence", "separable", "crosses"}; }
};

template <>
struct Codec<morphology::SkeletonMethod>
    : NoneAsUnset<morphology::SkeletonMethod, morphology::SkeletonMethod::none, morphology::skeleton_method_from_name,
                  meta::enum_name<morphology::SkeletonMethod>> {
  static std::vector<std::string> choices() { return {"zhang", "lee"}; }
};

template <>
struct Codec<morphology::MorphMode>
    : NamedByLibrary<morphology::MorphMode, morphology::morph_mode_from_name, morphology::morph_mode_name> {
  static std::vector<std::string> choices() {
    return {"reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"};
  }
};

/// A single footprint array (a path, non-zero = in); none is the function's default footprint.
/// Decomposed footprints (sequences) are C++-only.
template <>
struct Codec<morphology::Footprint> {
  static constexpr Kind kind = Kind::array;
  static std::string format(const morphology::Footprint& f) {
    if (f.is_sequence()) throw std::logic_error("cuskimage CLI: a footprint sequence default has no command-line form");
    return Codec<Array>::format(f.array());
  }
  static morphology::Footprint read(Invocation& inv, const std::string& name) {
    return morphology::Footprint(Codec<Array>::read(inv, name));
  }
  static bool equal(const morphology::Footprint& a, const morphology::Footprint& b) {
    return !a.is_sequence() && !b.is_sequence() && Codec<Array>::equal(a.array(), b.array());
  }
};

}  // namespace cuskimage::cli
