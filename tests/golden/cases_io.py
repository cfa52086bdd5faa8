"""Golden files for the io module (tests/golden/data/io/).

Two kinds of file:
  * inputs written by reference writers (numpy, tifffile, Pillow/imageio, and a tiny PNG encoder
    below for layouts Pillow cannot write), named <format>_<case>.<ext>;
  * what scikit-image's imread returns for them, <format>_<case>.expected.npy (C order, little-endian).
A few files carry a different expectation, noted where they are written (16-bit colour PNG, which
Pillow reduces to 8 bits; LZW/JPEG TIFF, which tifffile cannot decode without imagecodecs).
"""
import struct
import warnings
import zlib

import numpy as np
import skimage
import skimage.io
import tifffile
from numpy.lib import format as npformat
from PIL import Image

DTYPES = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"]


def _random(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) > 0.5
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _imread(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skimage.io.imread(str(path), **kw)


# ---- a minimal PNG encoder (for bit depths and colour types Pillow does not write) -------------------
def _chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def _png_rows(a, bitdepth):
    rows = []
    for y in range(a.shape[0]):
        r = a[y].reshape(-1)
        if bitdepth == 16:
            raw = r.astype(">u2").tobytes()
        elif bitdepth == 8:
            raw = r.astype(np.uint8).tobytes()
        else:
            bits = np.unpackbits(r.astype(np.uint8)[:, None], axis=1)[:, 8 - bitdepth:].reshape(-1)
            raw = np.packbits(bits).tobytes()
        rows.append(b"\x00" + raw)
    return b"".join(rows)


def write_png(path, a, bitdepth, colortype, palette=None, trns=None):
    a = np.asarray(a)
    if a.ndim == 2:
        a = a[:, :, None]
    h, w = a.shape[:2]
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bitdepth, colortype, 0, 0, 0))
    if palette is not None:
        out += _chunk(b"PLTE", np.asarray(palette, np.uint8).tobytes())
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    out += _chunk(b"IDAT", zlib.compress(_png_rows(a, bitdepth)))
    out += _chunk(b"IEND", b"")
    path.write_bytes(out)


def generate(g):
    d = g.dir
    for old in d.iterdir():  # start clean: every file here is written below
        old.unlink()
    rng = g.rng(20240601)

    # ---- NPY ------------------------------------------------------------------------------------------
    for dt in DTYPES:
        a = _random(rng, (3, 4, 5), dt)
        g.save(f"npy_{dt}", a)  # np.save: v1.0, little-endian, C order
        if np.dtype(dt).itemsize > 1:
            np.save(d / f"npy_{dt}_be.npy", a.astype(np.dtype(dt).newbyteorder(">")))
        np.save(d / f"npy_{dt}_fortran.npy", np.asfortranarray(a))
        for version in ((2, 0), (3, 0)):
            with open(d / f"npy_{dt}_v{version[0]}.npy", "wb") as f:
                npformat.write_array(f, a, version=version)
    g.save("npy_arange_int32", np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    np.save(d / "npy_scalar_float64.npy", np.array(2.5))  # (g.save would make it 1-d)
    g.save("npy_1d_uint16", np.arange(7, dtype=np.uint16))
    g.save("npy_empty_float32", np.zeros((0, 3), np.float32))
    g.save("npy_camera", g.camera())
    np.save(d / "npy_bad_complex.npy", np.zeros((2, 2), np.complex64))
    np.save(d / "npy_bad_float16.npy", np.zeros((2, 2), np.float16))
    np.save(d / "npy_bad_structured.npy", np.zeros(3, dtype=[("x", "<i4"), ("y", "<f8")]))
    np.save(d / "npy_bad_object.npy", np.array([1, "a"], dtype=object), allow_pickle=True)

    def tif(name, a, writer=None, **kw):
        path = d / f"tif_{name}.tif"
        if writer is None:
            tifffile.imwrite(path, a, **kw)
        else:
            writer(path)
        g.save(f"tif_{name}.expected", _imread(path))

    # ---- TIFF (tifffile) ------------------------------------------------------------------------------
    for dt in ["uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"]:
        tif(f"{dt}_gray", _random(rng, (20, 30), dt))
    tif("bool_1bit", rng.random((21, 19)) > 0.5)  # tifffile writes bool as 1 bit per sample
    tif("uint8_rgb", _random(rng, (20, 30, 3), "uint8"), photometric="rgb")
    tif("uint16_rgba", _random(rng, (20, 30, 4), "uint16"), photometric="rgb", extrasamples=["unassalpha"])
    tif("float32_rgb", rng.random((16, 12, 3)).astype(np.float32), photometric="rgb")
    tif("uint8_rgb_planar", _random(rng, (3, 20, 30), "uint8"), photometric="rgb", planarconfig="separate")
    tif("uint16_rgba_planar", _random(rng, (4, 10, 9), "uint16"), photometric="rgb", planarconfig="separate",
        extrasamples=["unassalpha"])
    tif("uint8_pages", _random(rng, (5, 12, 10), "uint8"), photometric="minisblack")
    tif("uint8_pages3", _random(rng, (3, 12, 10), "uint8"), photometric="minisblack")  # skimage: (12, 10, 3)
    tif("uint8_rgb_pages", _random(rng, (2, 12, 10, 3), "uint8"), photometric="rgb")
    tif("uint16_tiled", _random(rng, (40, 50), "uint16"), tile=(16, 16))
    tif("uint8_rgb_tiled_deflate", _random(rng, (40, 50, 3), "uint8"), photometric="rgb", tile=(32, 16),
        compression="zlib")
    tif("uint16_deflate_predictor", _random(rng, (30, 20), "uint16"), compression="zlib", predictor=True)  # horizontal differencing
    tif("int16_strips", _random(rng, (25, 20), "int16"), rowsperstrip=7)
    tif("uint8_bigtiff", _random(rng, (20, 30, 3), "uint8"), photometric="rgb", bigtiff=True)
    tif("float32_bigendian", rng.random((10, 11)).astype(np.float32), byteorder=">")
    tif("uint16_bigendian_rgb", _random(rng, (10, 11, 3), "uint16"), byteorder=">", photometric="rgb")
    tif("camera", g.camera(), compression="zlib")
    tif("uint8_4d", _random(rng, (2, 5, 12, 10), "uint8"))  # tifffile's shaped series: 10 pages, 4-D
    # Two tifffile series of the same shape: skimage returns the first only.
    two = d / "tif_two_series.tif"
    tifffile.imwrite(two, _random(rng, (12, 10), "uint16"))
    tifffile.imwrite(two, _random(rng, (12, 10), "uint16"), append=True)
    g.save("tif_two_series.expected", _imread(two))
    # Pillow pages of mixed shapes (no shaped series): pages of the first page's shape are stacked.
    first, other = _random(rng, (12, 10), "uint8"), _random(rng, (5, 5), "uint8")
    Image.fromarray(first).save(d / "tif_mixed_pages.tif", save_all=True,
                                append_images=[Image.fromarray(other), Image.fromarray(first[::-1].copy())])
    g.save("tif_mixed_pages.expected", _imread(d / "tif_mixed_pages.tif"))

    # Pillow (through libtiff) writes LZW and JPEG TIFF, which tifffile cannot read without imagecodecs:
    # LZW is lossless (expected = the source), JPEG is expected as Pillow decodes it.
    astro = g.astronaut()
    Image.fromarray(astro).save(d / "tif_lzw_rgb.tif", compression="tiff_lzw")
    g.save("tif_lzw_rgb.expected", astro)
    cam = g.camera()
    Image.fromarray(cam).save(d / "tif_lzw_gray.tif", compression="tiff_lzw")
    g.save("tif_lzw_gray.expected", cam)
    Image.fromarray(astro).save(d / "tif_jpeg_rgb.tif", compression="jpeg", quality=90)
    g.save("tif_jpeg_rgb.expected", np.asarray(Image.open(d / "tif_jpeg_rgb.tif")))
    Image.fromarray(cam).save(d / "tif_jpeg_gray.tif", compression="jpeg", quality=90)
    g.save("tif_jpeg_gray.expected", np.asarray(Image.open(d / "tif_jpeg_gray.tif")))

    # ---- PNG --------------------------------------------------------------------------------------------
    def png(name, writer, expected=None):
        path = d / f"png_{name}.png"
        writer(path)
        g.save(f"png_{name}.expected", _imread(path) if expected is None else expected)

    png("gray8", lambda p: Image.fromarray(cam).save(p))
    png("gray1", lambda p: Image.fromarray(rng.random((13, 11)) > 0.5).save(p))  # skimage: bool
    png("gray2", lambda p: write_png(p, rng.integers(0, 4, (9, 13)), 2, 0))  # skimage: scaled to 0..255
    png("gray4", lambda p: write_png(p, rng.integers(0, 16, (9, 13)), 4, 0))
    png("gray16", lambda p: write_png(p, rng.integers(0, 65536, (15, 17)), 16, 0))
    png("gray8_trns", lambda p: write_png(p, rng.integers(0, 256, (9, 13)), 8, 0, trns=struct.pack(">H", 7)))
    png("la8", lambda p: write_png(p, rng.integers(0, 256, (9, 13, 2)), 8, 4))
    png("rgb8", lambda p: Image.fromarray(astro).save(p))
    png("rgba8", lambda p: Image.fromarray(_random(rng, (17, 15, 4), "uint8")).save(p))
    png("rgb8_trns", lambda p: write_png(p, rng.integers(0, 256, (9, 13, 3)), 8, 2, trns=struct.pack(">HHH", 1, 2, 3)))
    pal = rng.integers(0, 256, (256, 3))
    png("pal1", lambda p: write_png(p, rng.integers(0, 2, (9, 13)), 1, 3, pal[:2]))
    png("pal4", lambda p: write_png(p, rng.integers(0, 16, (9, 13)), 4, 3, pal[:16]))
    png("pal8", lambda p: write_png(p, rng.integers(0, 256, (9, 13)), 8, 3, pal))
    png("pal8_trns", lambda p: write_png(p, rng.integers(0, 256, (9, 13)), 8, 3, pal, trns=bytes(range(0, 256, 4))))
    png("imageio_rgb8", lambda p: skimage.io.imsave(str(p), astro, check_contrast=False))
    # 16-bit colour: Pillow keeps only the high byte (and turns LA into RGBA); cuskimage keeps all 16 bits,
    # so these expectations are the source samples. The skimage result is stored alongside.
    for name, shape, ct in (("rgb16", (9, 13, 3), 2), ("rgba16", (9, 13, 4), 6), ("la16", (9, 13, 2), 4)):
        src = rng.integers(0, 65536, shape).astype(np.uint16)
        png(name, lambda p: write_png(p, src, 16, ct), expected=src)
        g.save(f"png_{name}.skimage", _imread(d / f"png_{name}.png"))

    # ---- JPEG (Pillow's libjpeg-turbo encoder; expectations are skimage's decode) -----------------------
    def jpg(name, a, **kw):
        path = d / f"jpg_{name}.jpg"
        Image.fromarray(a).save(path, **kw)
        g.save(f"jpg_{name}.expected", _imread(path))

    jpg("gray", cam, quality=90)
    jpg("rgb420", astro, quality=90)
    jpg("rgb444", astro, quality=90, subsampling=0)
    jpg("rgb422", astro, quality=90, subsampling=1)
    jpg("rgb_progressive", astro, quality=80, progressive=True)
    jpg("odd_size", _random(rng, (13, 27, 3), "uint8"), quality=75)

    # ---- as_gray ------------------------------------------------------------------------------------------
    for f in ("png_rgb8.png", "png_rgba8.png", "jpg_rgb420.jpg", "tif_float32_rgb.tif", "png_gray8.png",
              "tif_uint16_rgba.tif", "tif_uint8_rgb_planar.tif"):
        g.save(f"asgray_{f.replace('.', '_')}", _imread(d / f, as_gray=True))

    # Cases added later draw from their own generators, so the files above stay byte-stable.
    rng2 = g.rng(7)
    png("la8_4rows", lambda p: write_png(p, rng2.integers(0, 256, (4, 5, 2)), 8, 4))  # skimage: (5, 2, 4)
