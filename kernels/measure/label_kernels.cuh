// Device side of CUDA measure.label (kernels/measure/label.cu runs it). The design, its floor and
// its traffic are described there; this header holds the kernels and the per-tile labelling.
//
// A tile is 32 x TY x TZ pixels (TY * TZ = 32 rows) and belongs to one warp. Lane r owns tile row
// r (z = r / TY, y = r % TY) while runs are joined; a row is a 32-bit mask (bit x = pixel x) and a
// run is a maximal stretch of foreground pixels of one key in a row. Runs are numbered (ordinals)
// in raster order, and a union-find over runs in shared memory, with the smaller ordinal always
// the root, names every tile component by its first run, so a tile component's root pixel is its
// first pixel in raster order, which is also its smallest global index (inside a tile, raster
// order is the image's raster order).
//
// Pass 1 leaves what the final pass needs to write the labels without labelling the tile again:
// per tile row its foreground and run-start masks (Work::rows) and per run the ordinal of its
// tile-local root run (Work::runs, uint16).
//
// The pieces, in pass order: label_tile.cuh (geometry, work records, the tile union-find),
// label_local.cuh (pass 1), label_faces.cuh (passes 2 and 3), label_final.cuh (pass 4).
#pragma once

#include "kernels/measure/label_faces.cuh"
#include "kernels/measure/label_final.cuh"
#include "kernels/measure/label_local.cuh"
#include "kernels/measure/label_tile.cuh"
