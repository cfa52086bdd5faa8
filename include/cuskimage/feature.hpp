// cuskimage::feature — skimage.feature (0.26). One sub-header per scikit-image file.
#pragma once

#include "cuskimage/feature/peak.hpp"
#include "cuskimage/feature/fisher_vector.hpp"
#include "cuskimage/feature/cascade.hpp"
