// cuskimage::transform — skimage.transform (0.26): geometric transforms and their estimation, warps,
// pyramids, integral images, Hough and Radon transforms. One sub-header per scikit-image file.
#pragma once

#include "cuskimage/transform/finite_radon_transform.hpp"
#include "cuskimage/transform/geometric.hpp"
#include "cuskimage/transform/hough_transform.hpp"
#include "cuskimage/transform/integral.hpp"
#include "cuskimage/transform/pyramids.hpp"
#include "cuskimage/transform/radon_transform.hpp"
#include "cuskimage/transform/warps.hpp"
