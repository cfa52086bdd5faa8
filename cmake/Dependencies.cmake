# Third-party dependencies. Required: CUDA toolkit (runtime + CCCL), OpenMP, libtiff, libpng,
# TurboJPEG, DLPack. Optional (reported, never required): nvJPEG, NPP, cuFFT.
find_package(CUDAToolkit REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(TIFF REQUIRED)
find_package(PNG REQUIRED)
find_package(dlpack CONFIG QUIET)
if(NOT TARGET dlpack::dlpack)
  find_path(CUSK_DLPACK_INCLUDE dlpack/dlpack.h REQUIRED)
  add_library(dlpack::dlpack INTERFACE IMPORTED)
  target_include_directories(dlpack::dlpack INTERFACE ${CUSK_DLPACK_INCLUDE})
endif()

# TurboJPEG: plain library lookup (the libjpeg-turbo CMake package insists on static archives).
find_path(CUSK_TURBOJPEG_INCLUDE turbojpeg.h REQUIRED)
find_library(CUSK_TURBOJPEG_LIBRARY NAMES turbojpeg REQUIRED)
add_library(cusk::turbojpeg UNKNOWN IMPORTED)
set_target_properties(cusk::turbojpeg PROPERTIES IMPORTED_LOCATION ${CUSK_TURBOJPEG_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${CUSK_TURBOJPEG_INCLUDE})

find_package(nlohmann_json 3 QUIET)
if(NOT TARGET nlohmann_json::nlohmann_json)
  find_path(CUSK_JSON_INCLUDE nlohmann/json.hpp REQUIRED)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${CUSK_JSON_INCLUDE})
endif()

# CUDA 13 keeps CCCL (Thrust, CUB, libcu++) under include/cccl; public headers use libcu++'s mdspan.
set(CUSK_CCCL_INCLUDE_DIR "")
foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
  if(EXISTS "${dir}/cccl/cuda/std/mdspan")
    set(CUSK_CCCL_INCLUDE_DIR "${dir}/cccl")
  elseif(NOT CUSK_CCCL_INCLUDE_DIR AND EXISTS "${dir}/cuda/std/mdspan")
    set(CUSK_CCCL_INCLUDE_DIR "${dir}")
  endif()
endforeach()
if(NOT CUSK_CCCL_INCLUDE_DIR)
  message(FATAL_ERROR "cuskimage: libcu++ (cuda/std/mdspan) not found under ${CUDAToolkit_INCLUDE_DIRS}")
endif()

set(CUSK_HAVE_NVJPEG OFF)
set(CUSK_HAVE_NPP OFF)
set(CUSK_HAVE_CUFFT OFF)
# nvJPEG outside the toolkit (e.g. the nvidia-nvjpeg wheel's nvidia/cu13 folder: include/, lib/),
# for building the GPU host's binaries on a machine whose toolkit lacks it.
set(CUSK_NVJPEG_ROOT "" CACHE PATH "folder with include/nvjpeg.h and lib/libnvjpeg.so, when the CUDA toolkit lacks nvJPEG")
if(NOT TARGET CUDA::nvjpeg AND CUSK_NVJPEG_ROOT)
  find_library(CUSK_NVJPEG_LIBRARY NAMES nvjpeg libnvjpeg.so.13 HINTS ${CUSK_NVJPEG_ROOT}/lib NO_DEFAULT_PATH)
  find_path(CUSK_NVJPEG_INCLUDE nvjpeg.h HINTS ${CUSK_NVJPEG_ROOT}/include NO_DEFAULT_PATH)
  if(CUSK_NVJPEG_LIBRARY AND CUSK_NVJPEG_INCLUDE)
    add_library(CUDA::nvjpeg SHARED IMPORTED)
    set_target_properties(CUDA::nvjpeg PROPERTIES IMPORTED_LOCATION ${CUSK_NVJPEG_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${CUSK_NVJPEG_INCLUDE} INTERFACE_LINK_LIBRARIES CUDA::cudart)
  endif()
endif()
if(TARGET CUDA::nvjpeg)
  set(CUSK_HAVE_NVJPEG ON)
endif()
if(TARGET CUDA::nppc AND TARGET CUDA::nppif)
  set(CUSK_HAVE_NPP ON)
endif()
if(TARGET CUDA::cufft)
  set(CUSK_HAVE_CUFFT ON)
endif()

# FFTW3 (double and single precision) serves the CPU backend of the frequency-domain filters
# (butterworth, LPIFilter2D, wiener); optional: without it those raise NotSupported on CPU arrays.
# cuFFT serves their CUDA backend. The library target exists only after this file, so the link is
# deferred to the end of the top-level CMakeLists.
set(CUSK_HAVE_FFTW OFF)
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CUSK_FFTW QUIET IMPORTED_TARGET fftw3 fftw3f)
  if(CUSK_FFTW_FOUND)
    set(CUSK_HAVE_FFTW ON)
  endif()
endif()
message(STATUS "  FFT libraries: FFTW3 ${CUSK_HAVE_FFTW}, cuFFT ${CUSK_HAVE_CUFFT}")
function(cusk_link_fft)
  target_compile_definitions(cuskimage PRIVATE CUSK_HAVE_FFTW=$<BOOL:${CUSK_HAVE_FFTW}>)
  if(CUSK_HAVE_FFTW)
    target_link_libraries(cuskimage PRIVATE PkgConfig::CUSK_FFTW)
  endif()
  if(CUSK_HAVE_CUFFT)
    target_link_libraries(cuskimage PRIVATE CUDA::cufft)
  endif()
endfunction()
cmake_language(DEFER CALL cusk_link_fft)

# Eigen 3 (header-only): the small dense solves of transform estimation (SVD, least squares).
# Qhull (reentrant libqhull_r): the Delaunay triangulation of PiecewiseAffineTransform, run with
# scipy.spatial.Delaunay's options so the simplices agree with scipy's. Both private to the library.
# Eigen's include goes to the transform estimation sources only: on the whole target it would change
# every compile line of the library (a full rebuild, no ccache hits) for a few files' sake.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_path(CUSK_QHULL_INCLUDE libqhull_r/libqhull_r.h REQUIRED)
find_library(CUSK_QHULL_LIBRARY NAMES qhull_r REQUIRED)
add_library(cusk::qhull_r UNKNOWN IMPORTED)
set_target_properties(cusk::qhull_r PROPERTIES IMPORTED_LOCATION ${CUSK_QHULL_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${CUSK_QHULL_INCLUDE})
function(cusk_link_geometry)
  get_target_property(eigen_include Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
  file(GLOB eigen_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/transform/geometric_*.cpp)
  foreach(dir IN LISTS eigen_include)
    set_property(SOURCE ${eigen_sources} APPEND PROPERTY COMPILE_OPTIONS -isystem ${dir})
  endforeach()
  target_link_libraries(cuskimage PRIVATE cusk::qhull_r)
endfunction()
cmake_language(DEFER CALL cusk_link_geometry)

# pugixml (optional): parses the OpenCV-format XML cascades of feature::Cascade; without it the
# Cascade constructor raises NotSupported. The definition goes to that one source only, so toggling
# the dependency does not rebuild the library.
set(CUSK_HAVE_PUGIXML OFF)
find_package(pugixml QUIET)
if(TARGET pugixml::pugixml)
  set(CUSK_HAVE_PUGIXML ON)
endif()
message(STATUS "  pugixml (feature::Cascade): ${CUSK_HAVE_PUGIXML}")
function(cusk_link_pugixml)
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/feature/cascade.cpp APPEND PROPERTY COMPILE_DEFINITIONS
    CUSK_HAVE_PUGIXML=$<BOOL:${CUSK_HAVE_PUGIXML}>)
  if(CUSK_HAVE_PUGIXML)
    target_link_libraries(cuskimage PRIVATE pugixml::pugixml)
  endif()
endfunction()
cmake_language(DEFER CALL cusk_link_pugixml)
