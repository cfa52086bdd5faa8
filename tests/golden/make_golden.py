#!/usr/bin/env python3
"""Generate the golden outputs the C++ tests compare against.

Runs the pinned scikit-image release (requirements.txt) on real images shipped inside scikit-image
(camera, astronaut, coins, ...) and on seeded random inputs, and writes small .npy files to
tests/golden/data/<module>/. Each module's cases live in cases_<module>.py and define
`generate(g)` where `g` is the Golden helper below.

    python3 tests/golden/make_golden.py            # every module
    python3 tests/golden/make_golden.py util io    # some modules
"""
import importlib
import pathlib
import sys

import numpy as np
import skimage

HERE = pathlib.Path(__file__).resolve().parent
PINNED = (HERE / "requirements.txt").read_text().split("scikit-image==")[1].split()[0]


class Golden:
    """Writes arrays as <data>/<module>/<name>.npy (C order, native little-endian)."""

    def __init__(self, module):
        self.dir = HERE / "data" / module
        self.dir.mkdir(parents=True, exist_ok=True)
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
    if skimage.__version__ != PINNED:
        sys.exit(f"make_golden.py: scikit-image {PINNED} is pinned, found {skimage.__version__}; "
                 f"pip install -r {HERE / 'requirements.txt'}")
    modules = argv or sorted(p.stem[len("cases_"):] for p in HERE.glob("cases_*.py"))
    sys.path.insert(0, str(HERE))
    for m in modules:
        g = Golden(m)
        importlib.import_module(f"cases_{m}").generate(g)
        print(f"{m}: {g.written} files in {g.dir.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main(sys.argv[1:])
