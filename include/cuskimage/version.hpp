#pragma once

#define CUSKIMAGE_VERSION_MAJOR 0
#define CUSKIMAGE_VERSION_MINOR 1
#define CUSKIMAGE_VERSION_PATCH 0

namespace cuskimage {
inline constexpr const char* version = "0.1.0";
}  // namespace cuskimage
