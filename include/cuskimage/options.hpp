// Field lists of the options structs: each keyword argument is declared once, as a field of the
// struct (name, type, default), and listed once below the struct with a one-line doc. Tools that
// need the arguments by name (the `cuskimage` command line: parsing, help, defaults) walk the list
// instead of spelling the arguments again.
//
//   struct GaussianOptions { Sigma sigma = 1.0; ndimage::Modes mode = ndimage::Mode::nearest; ... };
//   CUSK_OPTIONS(GaussianOptions,
//                (sigma, "standard deviation of the Gaussian: one value or one per spatial axis"),
//                (mode, "how the image is extended beyond its edges"))
//
//   meta::for_each_field<GaussianOptions>([](const auto& f) { use(f.name, f.member, f.doc); });
//
// Enumerations named by strings get a name table the same way (the first name of a value is its
// canonical one; further names are accepted aliases):
//
//   enum class MedianBehavior { ndimage, rank };
//   CUSK_ENUM(MedianBehavior, ndimage, rank)
//   CUSK_ENUM_NAMED(InterpMode, (grid_constant, "grid-constant"), (reflect, "reflect"), ...)
//
// The macros go in the struct's (enum's) namespace, at namespace scope: they define constexpr
// functions found by argument-dependent lookup. Host C++20 only (std headers).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace cuskimage::meta {

/// One field of an options struct: its name (the member's spelling), pointer to member, doc line.
template <class S, class T>
struct Field {
  using struct_type = S;
  using type = T;
  using member_pointer = T S::*;
  const char* name;
  member_pointer member;
  const char* doc;
};

template <class S, class T>
constexpr Field<S, T> make_field(const char* name, T S::*member, const char* doc) {
  return {name, member, doc};
}

/// True for a struct with a CUSK_OPTIONS field list.
template <class S>
concept Described = requires(const S* s) { cusk_fields(s); };

/// The field list of S (a std::tuple of Field).
template <Described S>
constexpr auto fields() {
  return cusk_fields(static_cast<const S*>(nullptr));
}

/// The struct's name as written in CUSK_OPTIONS ("GaussianOptions").
template <Described S>
constexpr const char* struct_name() {
  return cusk_options_name(static_cast<const S*>(nullptr));
}

/// Calls f(field) for every field of S, in declaration order of the list.
template <Described S, class F>
constexpr void for_each_field(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, fields<S>());
}

template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// True for an enumeration with a CUSK_ENUM / CUSK_ENUM_NAMED table.
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires(const E* e) { cusk_enum_names(e); };

/// Every (value, name) of E, canonical names first per value.
template <NamedEnum E>
constexpr auto enum_names() {
  return cusk_enum_names(static_cast<const E*>(nullptr));
}

/// The canonical (first listed) name of `value`; "" when the table lacks it.
template <NamedEnum E>
constexpr std::string_view enum_name(E value) {
  for (const auto& e : enum_names<E>())
    if (e.value == value) return e.name;
  return {};
}

/// The value named `name` (canonical names and aliases); std::nullopt for an unknown name.
template <NamedEnum E>
constexpr std::optional<E> enum_from_name(std::string_view name) {
  for (const auto& e : enum_names<E>())
    if (name == e.name) return e.value;
  return std::nullopt;
}

}  // namespace cuskimage::meta

// ---- FOR_EACH over a macro's variadic arguments (C++20 __VA_OPT__; up to 256 entries) ---------------
#define CUSK_META_PARENS ()
#define CUSK_META_EXPAND(...) CUSK_META_EXPAND3(CUSK_META_EXPAND3(CUSK_META_EXPAND3(CUSK_META_EXPAND3(__VA_ARGS__))))
#define CUSK_META_EXPAND3(...) CUSK_META_EXPAND2(CUSK_META_EXPAND2(CUSK_META_EXPAND2(CUSK_META_EXPAND2(__VA_ARGS__))))
#define CUSK_META_EXPAND2(...) CUSK_META_EXPAND1(CUSK_META_EXPAND1(CUSK_META_EXPAND1(CUSK_META_EXPAND1(__VA_ARGS__))))
#define CUSK_META_EXPAND1(...) __VA_ARGS__
/// macro(ctx, a1), macro(ctx, a2), ... separated by commas.
#define CUSK_META_FOR_EACH(macro, ctx, ...) \
  __VA_OPT__(CUSK_META_EXPAND(CUSK_META_FOR_EACH_STEP(macro, ctx, __VA_ARGS__)))
#define CUSK_META_FOR_EACH_STEP(macro, ctx, a1, ...) \
  macro(ctx, a1) __VA_OPT__(, CUSK_META_FOR_EACH_AGAIN CUSK_META_PARENS(macro, ctx, __VA_ARGS__))
#define CUSK_META_FOR_EACH_AGAIN() CUSK_META_FOR_EACH_STEP

#define CUSK_META_UNPAREN(...) __VA_ARGS__
#define CUSK_META_CALL(m, ...) m(__VA_ARGS__)
#define CUSK_META_FIELD_ENTRY(S, entry) CUSK_META_CALL(CUSK_META_FIELD_ENTRY_, S, CUSK_META_UNPAREN entry)
#define CUSK_META_FIELD_ENTRY_(S, member, doc) ::cuskimage::meta::make_field(#member, &S::member, doc)
#define CUSK_META_ENUM_ENTRY(E, value) ::cuskimage::meta::EnumName<E>{E::value, #value}
#define CUSK_META_NAMED_ENTRY(E, entry) CUSK_META_CALL(CUSK_META_NAMED_ENTRY_, E, CUSK_META_UNPAREN entry)
#define CUSK_META_NAMED_ENTRY_(E, value, name) ::cuskimage::meta::EnumName<E>{E::value, name}

/// The field list of options struct S: CUSK_OPTIONS(S, (member, "doc"), ...). Members left out are
/// not visible to the tools (list every keyword argument).
#define CUSK_OPTIONS(S, ...)                                                                      \
  [[maybe_unused]] constexpr const char* cusk_options_name(const S*) { return #S; }              \
  [[maybe_unused]] constexpr auto cusk_fields(const S*) {                                         \
    return std::make_tuple(CUSK_META_FOR_EACH(CUSK_META_FIELD_ENTRY, S, __VA_ARGS__));            \
  }

/// Name table of enumeration E whose names are its enumerators' spellings: CUSK_ENUM(E, a, b).
#define CUSK_ENUM(E, ...)                                                                          \
  [[maybe_unused]] constexpr auto cusk_enum_names(const E*) {                                     \
    return std::array{CUSK_META_FOR_EACH(CUSK_META_ENUM_ENTRY, E, __VA_ARGS__)};                  \
  }

/// Name table with explicit names (and aliases): CUSK_ENUM_NAMED(E, (a, "a"), (a, "alias-of-a")).
#define CUSK_ENUM_NAMED(E, ...)                                                                    \
  [[maybe_unused]] constexpr auto cusk_enum_names(const E*) {                                     \
    return std::array{CUSK_META_FOR_EACH(CUSK_META_NAMED_ENTRY, E, __VA_ARGS__)};                 \
  }
