// skimage.segmentation.morphsnakes (scikit-image 0.26).
#pragma once

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {}  // namespace cuskimage::segmentation
