# Dependencies of the whole-slide reader/writer (src/wsi). libtiff and TurboJPEG come from
# Dependencies.cmake. Here: libjpeg (the libjpeg-turbo library behind TurboJPEG: its jpeglib API lets
# tiles be decoded with JPEGTables and a forced colour space, as OpenSlide does), zlib (Deflate tiles),
# and the optional codecs OpenJPEG (Aperio JPEG 2000 33003/33005), zstd and libwebp. libopenslide is
# looked up for the tests and the benchmark only (bit-exactness and speed comparisons); the library
# never links it. A codec that is absent makes its tiles raise NotSupported.
find_package(PkgConfig QUIET)
find_package(JPEG REQUIRED)
find_package(ZLIB REQUIRED)

set(CUSK_HAVE_OPENJPEG OFF)
set(CUSK_HAVE_ZSTD OFF)
set(CUSK_HAVE_WEBP OFF)
set(CUSK_HAVE_OPENSLIDE OFF)
# OFF for builds that run where OpenSlide's dependency tree is absent (the GPU host's packed runs).
option(CUSKIMAGE_OPENSLIDE_TESTS "compare with OpenSlide in the wsi tests and benchmark when it is found" ON)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CUSK_OPENJPEG QUIET IMPORTED_TARGET libopenjp2)
  pkg_check_modules(CUSK_ZSTD QUIET IMPORTED_TARGET libzstd)
  pkg_check_modules(CUSK_WEBP QUIET IMPORTED_TARGET libwebp)
  pkg_check_modules(CUSK_OPENSLIDE QUIET IMPORTED_TARGET openslide)
  if(CUSK_OPENJPEG_FOUND)
    set(CUSK_HAVE_OPENJPEG ON)
  endif()
  if(CUSK_ZSTD_FOUND)
    set(CUSK_HAVE_ZSTD ON)
  endif()
  if(CUSK_WEBP_FOUND)
    set(CUSK_HAVE_WEBP ON)
  endif()
  if(CUSK_OPENSLIDE_FOUND AND CUSKIMAGE_OPENSLIDE_TESTS)
    set(CUSK_HAVE_OPENSLIDE ON)
  endif()
endif()
find_program(CUSK_VIPS_EXE vips)

# The targets are made later in the root CMakeLists.txt: link them once the whole tree is configured.
function(cusk_wsi_link_dependencies)
  if(TARGET cuskimage)
    target_link_libraries(cuskimage PRIVATE JPEG::JPEG ZLIB::ZLIB
      $<$<BOOL:${CUSK_HAVE_OPENJPEG}>:PkgConfig::CUSK_OPENJPEG>
      $<$<BOOL:${CUSK_HAVE_ZSTD}>:PkgConfig::CUSK_ZSTD>
      $<$<BOOL:${CUSK_HAVE_WEBP}>:PkgConfig::CUSK_WEBP>)
    # Only the wsi sources see the codec switches and nvJPEG's header: the other files' compile
    # lines (and their ccache entries) stay the same whether or not nvJPEG is found.
    file(GLOB _cusk_wsi_sources ${PROJECT_SOURCE_DIR}/src/wsi/*.cpp)
    set_source_files_properties(${_cusk_wsi_sources} TARGET_DIRECTORY cuskimage PROPERTIES COMPILE_DEFINITIONS
      "CUSK_HAVE_NVJPEG=$<BOOL:${CUSK_HAVE_NVJPEG}>;CUSK_HAVE_OPENJPEG=$<BOOL:${CUSK_HAVE_OPENJPEG}>;CUSK_HAVE_ZSTD=$<BOOL:${CUSK_HAVE_ZSTD}>;CUSK_HAVE_WEBP=$<BOOL:${CUSK_HAVE_WEBP}>")
    if(CUSK_HAVE_NVJPEG)  # batched GPU decode of JPEG tiles (src/wsi/nvjpeg_decode.cpp)
      target_link_libraries(cuskimage PRIVATE $<TARGET_FILE:CUDA::nvjpeg>)
      set_source_files_properties(${_cusk_wsi_sources} TARGET_DIRECTORY cuskimage PROPERTIES INCLUDE_DIRECTORIES
        "$<TARGET_PROPERTY:CUDA::nvjpeg,INTERFACE_INCLUDE_DIRECTORIES>")
    endif()
  endif()
  foreach(tgt test_wsi bench_wsi)
    if(TARGET ${tgt})
      target_link_libraries(${tgt} PRIVATE TIFF::TIFF cusk::turbojpeg
        $<$<BOOL:${CUSK_HAVE_OPENSLIDE}>:PkgConfig::CUSK_OPENSLIDE>
        $<$<BOOL:${CUSK_HAVE_OPENJPEG}>:PkgConfig::CUSK_OPENJPEG>)
      target_compile_definitions(${tgt} PRIVATE
        CUSK_HAVE_OPENSLIDE=$<BOOL:${CUSK_HAVE_OPENSLIDE}>
        CUSK_HAVE_OPENJPEG=$<BOOL:${CUSK_HAVE_OPENJPEG}>
        CUSK_HAVE_ZSTD=$<BOOL:${CUSK_HAVE_ZSTD}>
        CUSK_HAVE_WEBP=$<BOOL:${CUSK_HAVE_WEBP}>
        CUSK_VIPS_EXE="$<$<BOOL:${CUSK_VIPS_EXE}>:${CUSK_VIPS_EXE}>")
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL cusk_wsi_link_dependencies)

message(STATUS "  wsi codecs: OpenJPEG ${CUSK_HAVE_OPENJPEG}, zstd ${CUSK_HAVE_ZSTD}, webp ${CUSK_HAVE_WEBP}; "
               "OpenSlide (tests) ${CUSK_HAVE_OPENSLIDE}; vips ${CUSK_VIPS_EXE}")
