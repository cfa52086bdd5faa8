// Lookup tables of scikit-image's _regionprops_utils shared by the host measures of a region's
// mask (src/measure/regionprops_region.cpp) and the batched CUDA pass (kernels/measure/regionprops.cu):
// Euler-number coefficients per 2x2 (2x2x2) configuration, Crofton coefficients (4 directions)
// and the perimeter weights of the 3x3 border convolution.
#pragma once

// EULER_COEFS2D_8: connectivity 2 (the regionprops default for 2-D).
#define CUSK_EULER2D_8 {0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, -1, 0}

// EULER_COEFS3D_26: connectivity 3 (the regionprops default for 3-D); the result is int(sum / 8).
#define CUSK_EULER3D_26                                                                                         \
  {0,  1,  1,  0,  1,  0,  -2, -1, 1,  -2, 0,  -1, 0,  -1, -1, 0,  1,  0,  -2, -1, -2, -1, -1, -2, -6, -3, -3, \
   -2, -3, -2, 0,  -1, 1,  -2, 0,  -1, -6, -3, -3, -2, -2, -1, -1, -2, -3, 0,  -2, -1, 0,  -1, -1, 0,  -3, -2, \
   0,  -1, -3, 0,  -2, -1, 0,  1,  1,  0,  1,  -2, -6, -3, 0,  -1, -3, -2, -2, -1, -3, 0,  -1, -2, -2, -1, 0,  \
   -1, -3, -2, -1, 0,  0,  -1, -3, 0,  0,  1,  -2, -1, 1,  0,  -2, -1, -3, 0,  -3, 0,  0,  1,  -1, 4,  0,  3,  \
   0,  3,  1,  2,  -1, -2, -2, -1, -2, -1, 1,  0,  0,  3,  1,  2,  1,  2,  2,  1,  1,  -6, -2, -3, -2, -3, -1, \
   0,  0,  -3, -1, -2, -1, -2, -2, -1, -2, -3, -1, 0,  -1, 0,  4,  3,  -3, 0,  0,  1,  0,  1,  3,  2,  0,  -3, \
   -1, -2, -3, 0,  0,  1,  -1, 0,  0,  -1, -2, 1,  -1, 0,  -1, -2, -2, -1, 0,  1,  3,  2,  -2, 1,  -1, 0,  1,  \
   2,  2,  1,  0,  -3, -3, 0,  -1, -2, 0,  1,  -1, 0,  -2, 1,  0,  -1, -1, 0,  -1, -2, 0,  1,  -2, -1, 3,  2,  \
   -2, 1,  1,  2,  -1, 0,  2,  1,  -1, 0,  -2, 1,  -2, 1,  1,  2,  -2, 3,  -1, 2,  -1, 2,  0,  1,  0,  -1, -1, \
   0,  -1, 0,  2,  1,  -1, 2,  0,  1,  0,  1,  1,  0}

// perimeter_crofton(directions=4) coefficients per 2x2 configuration.
#define CUSK_CROFTON4                                                                                   \
  {0.0,                                                                                                 \
   0.78539816339744828 * (1 + 0.70710678118654746),                                                     \
   3.1415926535897931 / (4 * 1.4142135623730951),                                                       \
   3.1415926535897931 / (2 * 1.4142135623730951),                                                       \
   0.0,                                                                                                 \
   0.78539816339744828 * (1 + 0.70710678118654746),                                                     \
   0.0,                                                                                                 \
   3.1415926535897931 / (4 * 1.4142135623730951),                                                       \
   0.78539816339744828,                                                                                 \
   1.5707963267948966,                                                                                  \
   3.1415926535897931 / (4 * 1.4142135623730951),                                                       \
   3.1415926535897931 / (4 * 1.4142135623730951),                                                       \
   0.78539816339744828,                                                                                 \
   1.5707963267948966,                                                                                  \
   0.0,                                                                                                 \
   0.0}

// perimeter(neighborhood=4): weight of each value of the [[10, 2, 10], [2, 1, 2], [10, 2, 10]]
// convolution of the border image (only odd values, border pixels, weigh).
#define CUSK_PERIMETER_WEIGHTS                                                                             \
  {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1.2071067811865475, 0, 1, 0, 1, 0, 0, 0, 1.4142135623730951, 0,       \
   1.2071067811865475, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1.4142135623730951, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  \
   0, 0}
