#!/usr/bin/env python3
"""Generate the golden outputs the C++ tests compare against.

Runs the pinned scikit-image release (requirements.txt) on real images shipped inside scikit-image
(camera, astronaut, coins, ...) and on seeded random inputs, and writes small .npy files into
tests/golden/data/<module>/, then packs that directory into the archive tests/golden/data/<module>.npz
(pack_golden.py: one deterministic zip per module, as np.savez_compressed writes; the directory is
removed). Each module's cases live in cases_<module>.py and define `generate(g)` where `g` is the
Golden helper below.

    python3 tests/golden/make_golden.py            # every module
    python3 tests/golden/make_golden.py util io    # some modules
    python3 tests/golden/make_golden.py --no-pack io  # leave tests/golden/data/io/ unpacked
    python3 tests/golden/make_golden.py --pack io  # pack an existing directory only (pack_golden.py)
"""
import importlib
import pathlib
import shutil
import sys

import numpy as np
import skimage

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pack_golden  # noqa: E402

PINNED = (HERE / "requirements.txt").read_text().split("scikit-image==")[1].split()[0]


class Golden:
    """Writes arrays as <data>/<module>/<name>.npy (C order, native little-endian). The directory
    starts empty: the archive made from it holds exactly what generate() wrote."""

    def __init__(self, module):
        self.dir = HERE / "data" / module
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.written = 0

    def rng(self, seed):
        return np.random.default_rng(seed)

    def save(self, name, array):
        a = np.ascontiguousarray(np.asarray(array))
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        np.save(self.dir / f"{name}.npy", a, allow_pickle=False)
        self.written += 1

    # Real images, cropped/subsampled so the committed files stay small.
    @staticmethod
    def camera():
        return skimage.data.camera()[::4, ::4]  # 128x128 uint8

    @staticmethod
    def astronaut():
        return skimage.data.astronaut()[::8, ::8]  # 64x64x3 uint8

    @staticmethod
    def coins():
        return skimage.data.coins()[::4, ::4]  # 76x96 uint8


def main(argv):
    if argv[:1] == ["--pack"]:
        return pack_golden.main(argv[1:])
    pack = "--no-pack" not in argv
    argv = [a for a in argv if a != "--no-pack"]
    if skimage.__version__ != PINNED:
        sys.exit(f"make_golden.py: scikit-image {PINNED} is pinned, found {skimage.__version__}; "
                 f"pip install -r {HERE / 'requirements.txt'}")
    modules = argv or sorted(p.stem[len("cases_"):] for p in HERE.glob("cases_*.py"))
    for m in modules:
        g = Golden(m)
        importlib.import_module(f"cases_{m}").generate(g)
        where = g.dir.relative_to(HERE.parent.parent)
        if pack:
            pack_golden.pack(g.dir, merge=False)
            where = pack_golden.archive_of(where)
        print(f"{m}: {g.written} arrays in {where}")


if __name__ == "__main__":
    main(sys.argv[1:])
