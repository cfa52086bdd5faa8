"""Golden outputs of skimage.morphology for tests/morphology/ (loaded as "morphology/<name>.npy").

Footprints: each file footprint_<function>[_<decomposition>].npy packs every case of one function
into one uint8 vector (every value fits), so dozens of sizes cost one small file. A case is
    [nparams, params..., kind, payload...]
kind 0 (array):    ndim, shape..., values...
kind 1 (sequence): nelem, (num_iter, ndim, shape..., values...) * nelem,
                   has_equivalent, [ndim, shape..., values...]   (footprint_from_sequence)
mirror/pad cases store the input array as a kind-0 payload right after the params, then the output.
A few single files (footprint_dtype_*) check the dtype parameter exactly.

`python3 tests/golden/cases_morphology.py tables` rewrites src/morphology/footprints_tables.hpp, the
C++ copy of scikit-image's precomputed disk/ball 'sequence' decomposition tables
(skimage/morphology/{disk,ball}_decompositions.npy).
"""
import pathlib
import sys
import warnings

import numpy as np
import skimage.morphology as sm


def _arr(a):
    a = np.asarray(a)
    return [a.ndim, *a.shape, *a.astype(np.int64).ravel().tolist()]


def _case(params, fp, equivalent=True):
    rec = [len(params), *params]
    if isinstance(fp, tuple):
        rec += [1, len(fp)]
        for el, n in fp:
            rec += [int(n), *_arr(el)]
        if equivalent and len(fp) > 0:
            rec += [1, *_arr(sm.footprint_from_sequence(fp))]
        else:
            rec += [0]
    else:
        rec += [0, *_arr(fp)]
    return rec


def _save(g, name, records):
    flat = [v for r in records for v in r]
    assert all(0 <= v < 256 for v in flat)
    g.save(name, np.asarray(flat, dtype=np.uint8))


def gen_footprints(g):
    # square/rectangle/cube are deprecated aliases; even sizes warn when "sequence" falls back.
    warnings.simplefilter("ignore", FutureWarning)
    warnings.simplefilter("ignore", UserWarning)
    small = range(0, 9)
    _save(g, "footprint_disk", [_case([r, s], sm.disk(r, strict_radius=bool(s)))
                                for r in range(0, 13) for s in (1, 0)])
    # 'sequence' from the precomputed table: every radius up to 18 with its equivalent footprint,
    # a few large ones (sequence only) up to the table's end.
    _save(g, "footprint_disk_sequence",
          [_case([r], sm.disk(r, decomposition="sequence")) for r in range(0, 19)] +
          [_case([r], sm.disk(r, decomposition="sequence"), False) for r in (40, 77, 128, 199, 250)])
    _save(g, "footprint_disk_crosses", [_case([r, s], sm.disk(r, strict_radius=bool(s), decomposition="crosses"))
                                        for r in range(0, 15) for s in (1, 0)])
    _save(g, "footprint_diamond", [_case([r], sm.diamond(r)) for r in range(0, 12)])
    _save(g, "footprint_diamond_sequence", [_case([r], sm.diamond(r, decomposition="sequence")) for r in range(0, 12)])
    _save(g, "footprint_ball", [_case([r, s], sm.ball(r, strict_radius=bool(s))) for r in range(0, 7) for s in (1, 0)])
    _save(g, "footprint_ball_sequence",
          [_case([r], sm.ball(r, decomposition="sequence")) for r in range(0, 7)] +
          [_case([r], sm.ball(r, decomposition="sequence"), False) for r in (13, 27, 50, 100)])
    _save(g, "footprint_octahedron", [_case([r], sm.octahedron(r)) for r in range(0, 6)])
    _save(g, "footprint_octahedron_sequence",
          [_case([r], sm.octahedron(r, decomposition="sequence")) for r in range(0, 5)])
    _save(g, "footprint_octagon", [_case([m, n], sm.octagon(m, n)) for m in small for n in small if m or n])
    _save(g, "footprint_octagon_sequence",
          [_case([m, n], sm.octagon(m, n, decomposition="sequence")) for m in small for n in small if m or n])
    _save(g, "footprint_star", [_case([a], sm.star(a)) for a in range(0, 12)])
    _save(g, "footprint_ellipse", [_case([w, h], sm.ellipse(w, h)) for w in small for h in small])
    _save(g, "footprint_ellipse_crosses",
          [_case([w, h], sm.ellipse(w, h, decomposition="crosses")) for w in small for h in small])
    shapes = [(1,), (4,), (7,), (1, 1), (3, 3), (4, 4), (3, 5), (5, 2), (9, 9), (7, 3), (1, 6), (11, 5),
              (3, 3, 3), (5, 3, 7), (2, 3, 4), (4, 4, 4), (3, 5, 3, 3)]
    for dec in (None, "separable", "sequence"):
        _save(g, "footprint_rectangle" + (f"_{dec}" if dec else ""),
              [_case(list(s), sm.footprint_rectangle(s, decomposition=dec)) for s in shapes])
        _save(g, "footprint_square" + (f"_{dec}" if dec else ""),
              [_case([w], sm.square(w, decomposition=dec)) for w in range(1, 10)])
        _save(g, "footprint_rect2" + (f"_{dec}" if dec else ""),
              [_case([r, c], sm.rectangle(r, c, decomposition=dec)) for r in (1, 2, 3, 6, 7) for c in (1, 4, 5)])
        _save(g, "footprint_cube" + (f"_{dec}" if dec else ""),
              [_case([w], sm.cube(w, decomposition=dec)) for w in range(1, 7)])

    rng = g.rng(7)
    mir, pad = [], []
    for shape in [(1,), (4,), (3, 3), (2, 5), (4, 6), (3, 2, 4), (1, 2, 1, 2)]:
        a = (rng.random(shape) < 0.5).astype(np.uint8)
        mir.append([0, *_arr(a), *_arr(sm.mirror_footprint(a))])
        for pe in (1, 0):
            pad.append([1, pe, *_arr(a), *_arr(sm.pad_footprint(a, pad_end=bool(pe)))])
    _save(g, "footprint_mirror", mir)
    _save(g, "footprint_pad", pad)

    # The dtype parameter (values and dtype compared exactly).
    g.save("footprint_dtype_disk_float32", sm.disk(3, dtype=np.float32))
    g.save("footprint_dtype_diamond_bool", sm.diamond(2, dtype=bool))
    g.save("footprint_dtype_ball_int32", sm.ball(2, dtype=np.int32))
    g.save("footprint_dtype_star_float64", sm.star(3, dtype=np.float64))
    g.save("footprint_dtype_octagon_uint16", sm.octagon(2, 3, dtype=np.uint16))
    g.save("footprint_dtype_ellipse_bool", sm.ellipse(3, 2, dtype=bool))
    g.save("footprint_dtype_rectangle_int64", sm.footprint_rectangle((2, 3), dtype=np.int64))
    g.save("footprint_dtype_octahedron_float32", sm.octahedron(2, dtype=np.float32))
    # Sequence elements keep the dtype (crosses always uint8 in scikit-image).
    g.save("footprint_dtype_disk_sequence_bool_0", sm.disk(4, dtype=bool, decomposition="sequence")[0][0])
    g.save("footprint_dtype_disk_crosses_float32_0", sm.disk(4, dtype=np.float32, decomposition="crosses")[0][0])
    g.save("footprint_dtype_equivalent", sm.footprint_from_sequence(sm.disk(3, decomposition="sequence")))


def generate(g):
    gen_footprints(g)


def write_tables():
    from skimage.morphology.footprints import _nsphere_decompositions as tables
    root = pathlib.Path(__file__).resolve().parents[2]
    out = ["// Generated by `python3 tests/golden/cases_morphology.py tables` from scikit-image's",
           "// skimage/morphology/disk_decompositions.npy and ball_decompositions.npy. Do not edit.",
           "// Row r: repetitions of the (T-shaped series, cross, square) elements of radius r.",
           "#pragma once", "", "#include <cstdint>", "",
           "namespace cuskimage::morphology::footprint_tables {", ""]
    for ndim, name in ((2, "disk"), (3, "ball")):
        t = tables[ndim]
        out.append(f"inline constexpr int k{name.capitalize()}DecompositionRows = {t.shape[0]};")
        out.append(f"inline constexpr std::uint8_t k{name.capitalize()}Decompositions[{t.shape[0]}][3] = {{")
        rows = [f"{{{a}, {b}, {c}}}" for a, b, c in t.tolist()]
        for i in range(0, len(rows), 8):
            out.append("    " + ", ".join(rows[i:i + 8]) + ",")
        out += ["};", ""]
    out += ["}  // namespace cuskimage::morphology::footprint_tables", ""]
    (root / "src/morphology/footprints_tables.hpp").write_text("\n".join(out))


if __name__ == "__main__" and sys.argv[1:] == ["tables"]:
    write_tables()
