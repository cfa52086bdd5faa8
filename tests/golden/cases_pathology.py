"""Golden outputs of cuskimage::pathology for tests/pathology/ (loaded as "pathology/<name>.npy").

cuCIM (the Python package whose cucim.core.operations these functions mirror) cannot be installed
here, so every reference below is a NumPy transcription of cuCIM's algorithm, written from its
sources (python/cucim/src/cucim/core/operations/{color,intensity,spatial}): the same float32/float64
steps in the same order, NumPy in place of CuPy and cuCIM's CUDA kernels. Where cuCIM's code has a
bug that the C++ side deliberately does not copy (normalize_data's 'atan' never selected, 
rand_* ignoring prob), the reference computes the documented behaviour. nearest / bilinear zoom
are cuskimage extensions; their references follow the C++ doc comments.

Inputs are saved next to the outputs (in_<name>.npy) so the C++ tests run exactly the same data.
"""
import numpy as np
import skimage.color
import skimage.data
import skimage.util

F32 = np.float32


# ---- optical density (stain_normalizer.py) -----------------------------------------------------

def image_to_absorbance(image, source_intensity=255.0, dtype=np.float32):
    dtype = np.dtype(dtype)
    is_float = image.dtype.kind == "f"
    img = image.astype(dtype, copy=False)
    lo = dtype.type(source_intensity / 255.0 if is_float else 1.0)
    hi = dtype.type(source_intensity)
    img = np.maximum(np.minimum(img, hi), lo)
    return -np.log(img / hi)


def absorbance_to_image(absorbance, source_intensity=255.0, dtype=np.uint8):
    a = absorbance.astype(np.promote_types(absorbance.dtype, np.float32), copy=False)
    rgb = np.exp(-a) * a.dtype.type(source_intensity)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        rgb = np.minimum(np.maximum(rgb, info.min), info.max)
        return np.round(rgb).astype(dtype)
    return rgb.astype(dtype)


def covariance(x):
    """cuCIM's _covariance: float32, mean-centred, X X^T / (n - 1)."""
    x = np.array(x, dtype=np.float32, order="C", copy=True)
    x -= x.mean(axis=1, keepdims=True)
    return (x @ x.T) * np.float32(1 / float(x.shape[1] - 1))


def absorbance_matrix(image, source_intensity, image_type, channel_axis):
    if image_type == "intensity":
        a = image_to_absorbance(image, source_intensity=source_intensity)
    else:
        a = image.astype(np.float32, copy=True)
    return np.moveaxis(a, channel_axis, 0).reshape(3, -1)


def stain_extraction_pca(image, source_intensity=240, alpha=1, beta=0.345, channel_axis=-1, image_type="intensity"):
    a = absorbance_matrix(image, source_intensity, image_type, channel_axis)
    a = a[:, np.all(a > beta, axis=0)]
    cov = covariance(a).astype(np.float32)
    _, ev = np.linalg.eigh(cov)
    ev = ev[:, [2, 1]]
    if ev[0, 0] < 0:
        ev[:, 0] *= -1
    if ev[0, 1] < 0:
        ev[:, 1] *= -1
    proj = ev.T @ a
    phi = np.arctan2(proj[1], proj[0])
    min_phi, max_phi = np.percentile(phi, (alpha, 100 - alpha))
    v_min = np.array([np.cos(min_phi), np.sin(min_phi)], dtype=np.float32)
    v_max = np.array([np.cos(max_phi), np.sin(max_phi)], dtype=np.float32)
    v1 = ev @ v_min
    v2 = ev @ v_max
    if v1[0] < v2[0]:
        v1, v2 = v2, v1
    s = np.stack((v1, v2), axis=-1)
    s /= np.linalg.norm(s, axis=0, keepdims=True)
    return s.astype(np.float32)


REF_STAIN = ((0.5626, 0.2159), (0.7201, 0.8012), (0.4062, 0.5581))
REF_MAX = (1.9705, 1.0308)


def normalize_colors_pca(image, source_intensity=240.0, alpha=1.0, beta=0.345, ref_stain_coeff=REF_STAIN,
                         ref_max_conc=REF_MAX, image_type="intensity", channel_axis=-1):
    a = absorbance_matrix(image, source_intensity, image_type, channel_axis)
    # cuCIM passes only beta on: the extraction runs with its default alpha.
    s = stain_extraction_pca(a, beta=beta, image_type="absorbance", channel_axis=0)
    pinv = np.linalg.inv(s.T @ s) @ s.T
    conc = pinv.astype(np.float32) @ a
    max_conc = np.array([np.percentile(ch, 100 - alpha) for ch in conc])
    conc *= (np.asarray(ref_max_conc) / max_conc)[:, None]
    a_norm = np.asarray(ref_stain_coeff) @ conc
    out = absorbance_to_image(a_norm, source_intensity=source_intensity, dtype=np.uint8)
    shape = np.moveaxis(image, channel_axis, 0).shape
    return np.moveaxis(out.reshape(shape), 0, channel_axis)


# ---- colour jitter (jitter.py and its CUDA kernels) --------------------------------------------

def luma16(rgb):
    r, g, b = (rgb[..., c].astype(np.uint32) for c in range(3))
    return ((r * 19595 + g * 38470 + b * 7471) + 0x8000) >> 16


def clip255(v):
    return np.minimum(np.maximum(v, F32(0)), F32(255))


def brightness(x, f):
    return clip255(x.astype(F32) * F32(f)).astype(np.uint8)


def blend(x, bc, f):
    return clip255(bc + F32(f) * (x.astype(F32) - bc)).astype(np.uint8)


def contrast(x, f):  # x: (H, W, 3) one image
    lum = luma16(x)
    mean = F32(lum.sum(dtype=np.uint64) / lum.size)
    bc = F32(int(float(mean) + 0.5))
    return blend(x, bc, f)


def saturation(x, f):
    lum = luma16(x).astype(F32)[..., None]
    return blend(x, lum, f)


def round_half_away(v):
    return (np.sign(v) * np.floor(np.abs(v).astype(np.float64) + 0.5)).astype(F32)


def hue(x, f):
    r, g, b = (x[..., c].astype(F32) for c in range(3))
    maxc = np.maximum(r, np.maximum(g, b))
    minc = np.minimum(r, np.minimum(g, b))
    grey = maxc == minc
    with np.errstate(divide="ignore", invalid="ignore"):
        cr = maxc - minc
        s = cr / maxc
        rc = (maxc - r) / cr
        gc = (maxc - g) / cr
        bc = (maxc - b) / cr
        h = np.where(r == maxc, bc - gc, np.where(g == maxc, (F32(2) + rc) - bc, (F32(4) + gc) - rc))
        h = h / F32(6) + F32(1)
        h = np.where(h >= 1, h - F32(1), h)
        uh = np.where(grey, F32(0), clip255(h * F32(255)))
        us = np.where(grey, F32(0), clip255(s * F32(255)))
    h8 = np.rint(uh).astype(np.uint8)
    s8 = np.rint(us).astype(np.uint8)
    v8 = np.rint(maxc).astype(np.uint8)
    hs = h8.astype(F32) + F32(f) * F32(255)
    hj = (np.trunc(hs).astype(np.int32) & 0xFF).astype(F32)
    s, v = s8.astype(F32), v8.astype(F32)
    i = (hj * F32(6)) / F32(255)
    fl = np.floor(i)
    fr = i - fl
    fs = s / F32(255)
    up = clip255(round_half_away(v * (F32(1) - fs)))
    uq = clip255(round_half_away(v * (F32(1) - fs * fr)))
    ut = clip255(round_half_away(v * (F32(1) - fs * (F32(1) - fr))))
    sector = fl.astype(np.int32) % 6
    table = {0: (v, ut, up), 1: (uq, v, up), 2: (up, v, ut), 3: (up, uq, v), 4: (ut, up, v), 5: (v, up, uq)}
    out = np.zeros(x.shape, F32)
    for k, chans in table.items():
        m = sector == k
        for c in range(3):
            out[..., c] = np.where(m, chans[c], out[..., c])
    out = np.rint(out).astype(np.uint8)
    out[s8 == 0] = 0
    return out


def adjust_colors(img, order, b=None, c=None, s=None, h=None):
    """img: (H, W, 3) or (N, H, W, 3) uint8, channel-last."""
    x = img.copy()
    batch = x if x.ndim == 4 else x[None]
    for n in range(batch.shape[0]):
        y = batch[n]
        for op in order:
            if op == 0 and b is not None:
                y = brightness(y, b)
            elif op == 1 and c is not None:
                y = contrast(y, c)
            elif op == 2 and s is not None:
                y = saturation(y, s)
            elif op == 3 and h is not None:
                y = hue(y, h)
        batch[n] = y
    return x


# ---- intensity (normalize.py, scaling.py, zoom.py) --------------------------------------------

def normalize_data(img, norm_constant, min_value, max_value, kind="range"):
    x = img.astype(F32)
    nf = F32(norm_constant / (max_value - min_value))
    d = x - F32(min_value)
    out = nf * (np.arctan(d) if kind == "atan" else d)
    return out if img.dtype == F32 else out.astype(img.dtype)


def scale_intensity_range(img, a_min, a_max, b_min, b_max, clip=False):
    x = img.astype(F32)
    sc = (b_max - b_min) / (a_max - a_min)
    off = a_min * sc - b_min
    out = x * F32(sc) - F32(off)
    if clip:
        out = np.maximum(np.minimum(out, F32(b_max)), F32(b_min))
    return out if img.dtype == F32 else out.astype(img.dtype)


def zoom_sample_area(p, zy, zx, zh, zw):
    h, w = p.shape
    y0 = int(np.floor(F32(zy * h) / F32(zh)))
    y1 = int(np.ceil(F32((zy + 1) * h) / F32(zh)))
    x0 = int(np.floor(F32(zx * w) / F32(zw)))
    x1 = int(np.ceil(F32((zx + 1) * w) / F32(zw)))
    s = F32(0)
    for y in range(y0, y1):
        for x in range(x0, x1):
            s = F32(s + (p[y, x] if (y < h and x < w) else F32(0)))
    s = F32(s / F32(y1 - y0))
    return F32(s / F32(x1 - x0))


def zoom_sample_nearest(p, zy, zx, zh, zw):
    h, w = p.shape
    return p[min(((2 * zy + 1) * h) // (2 * zh), h - 1), min(((2 * zx + 1) * w) // (2 * zw), w - 1)]


def zoom_sample_bilinear(p, zy, zx, zh, zw):
    h, w = p.shape
    fy = F32(F32((2 * zy + 1) * h) / F32(2 * zh)) - F32(0.5)
    fx = F32(F32((2 * zx + 1) * w) / F32(2 * zw)) - F32(0.5)
    fy = min(max(fy, F32(0)), F32(h - 1))
    fx = min(max(fx, F32(0)), F32(w - 1))
    ly, lx = np.floor(fy), np.floor(fx)
    y0, x0 = int(ly), int(lx)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    wy, wx = F32(fy - ly), F32(fx - lx)
    top = F32((F32(1) - wx) * p[y0, x0]) + F32(wx * p[y0, x1])
    bot = F32((F32(1) - wx) * p[y1, x0]) + F32(wx * p[y1, x1])
    return F32(F32((F32(1) - wy) * top) + F32(wy * bot))


def zoom(img, factors, interp="area"):
    """Channel-first (..., H, W), cuCIM's zoom: resample, then centre crop or centre + edge pad."""
    x = img.astype(F32)
    h, w = x.shape[-2:]
    zh, zw = int(np.floor(h * factors[0])), int(np.floor(w * factors[1]))
    sample = {"area": zoom_sample_area, "nearest": zoom_sample_nearest, "bilinear": zoom_sample_bilinear}[interp]
    out = np.empty_like(x)
    planes = x.reshape(-1, h, w)
    o = out.reshape(-1, h, w)
    for k in range(planes.shape[0]):
        for y in range(h):
            for xx in range(w):
                if zh > h:
                    zy, zx = y + (zh - h) // 2, xx + (zw - w) // 2
                else:
                    zy = min(max(y - (h - zh) // 2, 0), zh - 1)
                    zx = min(max(xx - (w - zw) // 2, 0), zw - 1)
                o[k, y, xx] = sample(planes[k], zy, zx, zh, zw)
    return out if img.dtype == F32 else out.astype(img.dtype)


# ---- Reinhard (not in cuCIM): skimage.color's LAB, population statistics ------------------------

def lab_stats(rgb):
    lab = skimage.color.rgb2lab(rgb).reshape(-1, 3)
    return lab.mean(axis=0), lab.std(axis=0)


def normalize_reinhard(rgb, tmean, tstd):
    lab = skimage.color.rgb2lab(rgb)
    m, sd = lab.reshape(-1, 3).mean(axis=0), lab.reshape(-1, 3).std(axis=0)
    out = skimage.color.lab2rgb((lab - m) / sd * tstd + tmean)
    return skimage.util.img_as_ubyte(out) if rgb.dtype == np.uint8 else out


# ---- inputs ---------------------------------------------------------------------------------------

def he_tile(g, shape=(40, 48), seed=7):
    """A synthetic H&E tile: random H and E concentrations through Macenko's reference stains, with a
    transparent (background) corner, 8-bit."""
    rng = g.rng(seed)
    conc = rng.gamma(2.0, 0.35, shape + (2,))
    conc[: shape[0] // 4, : shape[1] // 4] *= 0.02  # background
    stains = np.array(REF_STAIN)
    od = conc @ stains.T
    rgb = 240 * np.exp(-od) + rng.normal(0, 2, shape + (3,))
    return np.clip(np.round(rgb), 0, 255).astype(np.uint8)


def ihc_tile():
    return np.ascontiguousarray(skimage.data.immunohistochemistry()[200:264, 300:372])  # 64x72x3 uint8


def generate(g):
    he = he_tile(g)
    ihc = ihc_tile()
    g.save("in_he", he)
    g.save("in_ihc", ihc)

    # optical density
    g.save("absorb_he_f32", image_to_absorbance(he))
    g.save("absorb_he_240_f64", image_to_absorbance(he, 240.0, np.float64))
    fimg = (g.rng(3).random((9, 11, 3)) * 1.2).astype(np.float32)
    g.save("in_float", fimg)
    g.save("absorb_float_1", image_to_absorbance(fimg, 1.0))
    a = image_to_absorbance(he, 240.0)
    g.save("to_image_he_u8", absorbance_to_image(a, 240.0, np.uint8))
    g.save("to_image_he_u16", absorbance_to_image(a, 240.0, np.uint16))
    g.save("to_image_he_f32", absorbance_to_image(a, 240.0, np.float32))

    # Macenko
    g.save("stain_he", stain_extraction_pca(he))
    g.save("stain_ihc", stain_extraction_pca(ihc))
    g.save("stain_he_a5_b02", stain_extraction_pca(he, source_intensity=250, alpha=5, beta=0.2))
    he_cf = np.ascontiguousarray(np.moveaxis(he, -1, 0))
    g.save("in_he_cf", he_cf)
    g.save("stain_he_cf", stain_extraction_pca(he_cf, channel_axis=0))
    g.save("norm_he", normalize_colors_pca(he))
    g.save("norm_ihc", normalize_colors_pca(ihc))
    g.save("norm_he_a3", normalize_colors_pca(he, alpha=3.0, source_intensity=250.0))
    g.save("norm_he_cf", normalize_colors_pca(he_cf, channel_axis=0))

    # colour jitter (fixed draws)
    rgb = np.ascontiguousarray(skimage.data.astronaut()[::8, ::8])  # 64x64x3
    g.save("in_rgb", rgb)
    g.save("jitter_b", adjust_colors(rgb, [0, 1, 2, 3], b=1.37))
    g.save("jitter_c", adjust_colors(rgb, [0, 1, 2, 3], c=0.61))
    g.save("jitter_s", adjust_colors(rgb, [0, 1, 2, 3], s=1.8))
    g.save("jitter_h", adjust_colors(rgb, [0, 1, 2, 3], h=0.21))
    g.save("jitter_hneg", adjust_colors(rgb, [0, 1, 2, 3], h=-0.33))
    g.save("jitter_all", adjust_colors(rgb, [3, 1, 0, 2], b=0.8, c=1.3, s=0.4, h=-0.05))
    batch = np.stack([rgb, he[:32, :32].repeat(2, 0).repeat(2, 1)])
    g.save("in_batch", batch)
    g.save("jitter_batch", adjust_colors(batch, [2, 1, 3, 0], b=1.1, c=0.7, s=1.2, h=0.1))

    # intensity
    x = (g.rng(11).random((3, 17, 19)) * 300 - 20).astype(np.float32)
    g.save("in_intensity", x)
    g.save("normalize_range", normalize_data(x, 10.0, 0.0, 255.0))
    g.save("normalize_atan", normalize_data(x, 2.0, 10.0, 30.0, "atan"))
    g.save("scale", scale_intensity_range(x, -1.0, 255.0, 0.0, 1.0))
    g.save("scale_clip", scale_intensity_range(x, 0.0, 255.0, -1.0, 1.0, clip=True))
    xu8 = rgb.transpose(2, 0, 1).copy()
    g.save("in_cf_u8", xu8)
    g.save("scale_u8", scale_intensity_range(xu8, 0.0, 255.0, 0.0, 128.0))

    # zoom (channel-first, as cuCIM)
    z = (g.rng(13).random((2, 3, 13, 17)) * 255).astype(np.float32)
    g.save("in_zoom", z)
    for name, f in (("in", (1.5, 1.3)), ("out", (0.7, 0.6)), ("in2", (2.0, 2.0)), ("out2", (0.5, 0.35))):
        for interp in ("area", "nearest", "bilinear"):
            g.save(f"zoom_{name}_{interp}", zoom(z, f, interp))
    g.save("zoom_u8_in", zoom(xu8, (1.25, 1.25)))

    # flips and quarter turns
    g.save("flip_12", np.flip(xu8, (1, 2)))
    g.save("flip_0", np.flip(rgb, (0,)))
    for k in (1, 2, 3, -1, 5):
        g.save(f"rot90_k{k}".replace("-", "m"), np.rot90(rgb, k, (0, 1)))
    g.save("rot90_cf_k1", np.rot90(xu8, 1, (1, 2)))

    # Reinhard
    m_he, s_he = lab_stats(he)
    m_ihc, s_ihc = lab_stats(ihc)
    g.save("lab_stats_he", np.stack([m_he, s_he]))
    g.save("lab_stats_ihc", np.stack([m_ihc, s_ihc]))
    g.save("reinhard_ihc_to_he", normalize_reinhard(ihc, m_he, s_he))
    g.save("reinhard_he_to_ihc", normalize_reinhard(he, m_ihc, s_ihc))
    g.save("reinhard_ihc_f32_to_he", normalize_reinhard(ihc.astype(np.float32) / 255, m_he, s_he))
