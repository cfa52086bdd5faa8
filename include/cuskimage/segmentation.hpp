// cuskimage::segmentation — skimage.segmentation (0.26). One sub-header per scikit-image file.
#pragma once

#include "cuskimage/segmentation/active_contour.hpp"
#include "cuskimage/segmentation/boundaries.hpp"
#include "cuskimage/segmentation/chan_vese.hpp"
#include "cuskimage/segmentation/clear_border.hpp"
#include "cuskimage/segmentation/expand_labels.hpp"
#include "cuskimage/segmentation/felzenszwalb.hpp"
#include "cuskimage/segmentation/join.hpp"
#include "cuskimage/segmentation/morphsnakes.hpp"
#include "cuskimage/segmentation/quickshift.hpp"
#include "cuskimage/segmentation/random_walker.hpp"
#include "cuskimage/segmentation/slic.hpp"
#include "cuskimage/segmentation/watershed.hpp"
