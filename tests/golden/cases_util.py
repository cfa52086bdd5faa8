"""Golden outputs of skimage.util for tests/util/ (loaded as "util/<name>.npy").

Inputs are saved next to the outputs (in_<name>.npy) so the C++ tests run exactly the same data.
random_noise cannot match NumPy's generator, so only statistics of scikit-image's own output are
stored (noise_stats_<case>.npy) and compared with tolerances.
"""
import numpy as np
import skimage.util as su
from skimage.util.dtype import _convert

DTYPES = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"]
IMG_AS = {
    "float": su.img_as_float,
    "float32": su.img_as_float32,
    "float64": su.img_as_float64,
    "ubyte": su.img_as_ubyte,
    "uint": su.img_as_uint,
    "int": su.img_as_int,
    "bool": su.img_as_bool,
}
CONVERT_TARGETS = ["int8", "uint32", "int32", "uint64", "int64"]


def random_input(g, dtype, seed, shape=(17, 23)):
    """Uniform over the dtype's whole range plus its special values (min, max, 0, +-1, halves)."""
    rng = g.rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        a = rng.uniform(-1, 1, shape).astype(dt)
        flat = a.reshape(-1)
        # Values on rounding boundaries of the 8- and 16-bit grids, and the ends of the range.
        specials = [-1.0, 1.0, 0.0, -0.0, 0.5, -0.5, 0.5 / 255, 1.5 / 255, 2.5 / 255, 254.5 / 255,
                    0.5 / 65535, 0.5 / 32767.5, -0.5 / 32767.5, 1 / 3, -1 / 3, 1.5 / 32767.5]
        flat[: len(specials)] = np.array(specials, dtype=np.float64).astype(dt)
        # Exact grid points k / 255 (in the input's precision) exercise x * 255 rounding.
        k = rng.integers(0, 256, 60)
        flat[len(specials): len(specials) + 60] = (k / 255.0).astype(dt)
        return a
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    flat = a.reshape(-1)
    specials = [info.min, info.max, 0, 1, info.max // 2, info.max // 2 + 1]
    if info.min < 0:
        specials += [-1, info.min + 1]
    flat[: len(specials)] = np.array(specials, dtype=dt)
    return a


def small_range_input(g, dtype, seed, hi, lo=0, shape=(9, 11)):
    """Integers whose maximum fits a narrower type (scikit-image's 'downcast without scaling')."""
    rng = g.rng(seed)
    return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


def gen_dtype(g):
    inputs = {dt: random_input(g, dt, 100 + i) for i, dt in enumerate(DTYPES)}
    # Data-dependent integer downscaling (max fits) and wrap-around of the intermediate types.
    inputs["uint16_small"] = small_range_input(g, "uint16", 201, 255)
    inputs["uint32_small"] = small_range_input(g, "uint32", 202, 32767)
    inputs["int32_small"] = small_range_input(g, "int32", 203, 255, lo=-100000)
    inputs["int64_small"] = small_range_input(g, "int64", 204, 200, lo=-(2**40))
    inputs["int16_small"] = small_range_input(g, "int16", 205, 127, lo=-30000)
    inputs["uint64_small"] = small_range_input(g, "uint64", 206, 2**40)
    for name, a in inputs.items():
        g.save(f"in_{name}", a)
        for fname, f in IMG_AS.items():
            try:
                out = f(a)
            except ValueError:
                continue  # none expected: the float inputs are within [-1, 1]
            g.save(f"img_as_{fname}_{name}", out)
        for target in CONVERT_TARGETS:
            try:
                out = _convert(a, np.dtype(target))
            except (ValueError, StopIteration, RuntimeError):
                g.save(f"convert_{target}_{name}_error", np.zeros(1, np.uint8))
                continue
            g.save(f"convert_{target}_{name}", out)
        if a.dtype.kind == "f":
            for target in ["uint8", "uint16", "int16", "int8"]:
                g.save(f"convert_uniform_{target}_{name}", _convert(a, np.dtype(target), uniform=True))
    # Real images.
    cam = g.camera()
    g.save("in_camera", cam)
    g.save("camera_float", su.img_as_float(cam))
    g.save("camera_float32", su.img_as_float32(cam))
    g.save("camera_int", su.img_as_int(cam))
    g.save("camera_uint", su.img_as_uint(cam))
    g.save("camera_bool", su.img_as_bool(cam))
    g.save("camera_roundtrip_ubyte", su.img_as_ubyte(su.img_as_float32(cam)))
    g.save("camera_float_to_uint", su.img_as_uint(su.img_as_float(cam)))
    g.save("camera_float_to_int", su.img_as_int(su.img_as_float(cam) * 2 - 1))


def gen_invert(g):
    for i, dt in enumerate(DTYPES):
        a = random_input(g, dt, 300 + i)
        g.save(f"in_inv_{dt}", a)
        g.save(f"invert_{dt}", su.invert(a))
        if a.dtype.kind == "f":
            g.save(f"invert_signed_{dt}", su.invert(a, signed_float=True))
    g.save("invert_camera", su.invert(g.camera()))
    g.save("invert_astronaut", su.invert(g.astronaut()))


def gen_crop(g):
    ast = g.astronaut()
    g.save("in_astronaut", ast)
    g.save("crop_int", su.crop(ast, 5))
    g.save("crop_pair", su.crop(ast, (3, 7)))
    g.save("crop_per_axis", su.crop(ast, ((1, 2), (10, 0), (0, 1))))
    g.save("crop_one_pair_list", su.crop(ast, [(4, 6)]))
    g.save("crop_copy_F", su.crop(ast, ((2, 2), (3, 3), (0, 0)), copy=True, order="F"))
    g.save("in_coins", g.coins())
    g.save("crop_all", su.crop(g.coins(), ((38, 38), (0, 0))))
    g.save("crop_rows", su.crop(g.coins(), ((10, 20), (0, 0))))


def gen_montage(g):
    coins = g.coins()
    stack = np.stack([coins[i * 10: i * 10 + 20, i * 8: i * 8 + 30] for i in range(5)])  # (5, 20, 30) uint8
    g.save("in_montage_gray", stack)
    g.save("montage_gray_mean", su.montage(stack))
    g.save("montage_gray_fill_grid_pad", su.montage(stack, fill=7, grid_shape=(2, 3), padding_width=2))
    g.save("montage_gray_rescale", su.montage(stack.copy(), rescale_intensity=True))
    f32 = (stack / 255.0).astype(np.float32) * 0.5 + 0.1
    g.save("in_montage_f32", f32)
    g.save("montage_f32_rescale", su.montage(f32.copy(), rescale_intensity=True, padding_width=1))
    g.save("montage_f32_mean", su.montage(f32))
    i16 = stack.astype(np.int16) - 100
    g.save("in_montage_i16", i16)
    g.save("montage_i16_rescale", su.montage(i16.copy(), rescale_intensity=True))
    ast = g.astronaut()
    rgb = np.stack([ast[:32, :32], ast[32:, :32], ast[:32, 32:]])  # (3, 32, 32, 3)
    g.save("in_montage_rgb", rgb)
    g.save("montage_rgb", su.montage(rgb, channel_axis=-1))
    g.save("montage_rgb_fill", su.montage(rgb, channel_axis=3, fill=(1, 2, 3), grid_shape=(1, 3), padding_width=3))
    rgb_c1 = np.moveaxis(rgb, -1, 1).copy()  # (3, 3, 32, 32): channels on axis 1
    g.save("in_montage_rgb_c1", rgb_c1)
    g.save("montage_rgb_c1", su.montage(rgb_c1, channel_axis=1))


def gen_noise(g):
    """Statistics of scikit-image's own output: [mean(out), std(out - img), frac(out == 1), frac(out == floor)]."""
    cam = g.camera()
    img = su.img_as_float(cam)
    signed = su.img_as_float(cam.astype(np.int16) - 128)  # negative values: floor -1
    cases = {
        "gaussian": (cam, img, dict(mode="gaussian")),
        "gaussian_mean_var": (cam, img, dict(mode="gaussian", mean=0.1, var=0.04, clip=False)),
        "speckle": (cam, img, dict(mode="speckle", var=0.05, clip=False)),
        "salt": (cam, img, dict(mode="salt", amount=0.2)),
        "pepper": (cam, img, dict(mode="pepper", amount=0.3)),
        "sp": (cam, img, dict(mode="s&p", amount=0.25, salt_vs_pepper=0.3)),
        "poisson": (cam, img, dict(mode="poisson")),
        "localvar": (cam, img, dict(mode="localvar", clip=False)),
        "sp_signed": (signed, signed, dict(mode="s&p", amount=0.5)),
        "poisson_signed": (signed, signed, dict(mode="poisson", clip=False)),
    }
    g.save("in_noise_signed", (cam.astype(np.int16) - 128))
    for name, (inp, ref, kw) in cases.items():
        stats = []
        for seed in range(20):  # average over several draws for stable statistics
            out = su.random_noise(inp, rng=seed, **kw)
            lo = -1.0 if ref.min() < 0 else 0.0
            stats.append([out.mean(), (out - ref).std(), np.mean(out == 1.0), np.mean(out == lo)])
        g.save(f"noise_stats_{name}", np.mean(np.array(stats), axis=0))


def gen_views(g):
    a = np.arange(4 * 6 * 5, dtype=np.int32).reshape(4, 6, 5)
    g.save("in_views", a)
    g.save("blocks_2_3_5", np.ascontiguousarray(su.view_as_blocks(a, (2, 3, 5))))
    g.save("blocks_1_2_1", np.ascontiguousarray(su.view_as_blocks(a, (1, 2, 1))))
    g.save("windows_3", np.ascontiguousarray(su.view_as_windows(a, 3)))
    g.save("windows_2_3_2_step", np.ascontiguousarray(su.view_as_windows(a, (2, 3, 2), step=(2, 1, 3))))
    cam = g.camera()
    g.save("windows_camera", np.ascontiguousarray(su.view_as_windows(cam, (8, 8), step=16)))
    g.save("blocks_camera", np.ascontiguousarray(su.view_as_blocks(cam, (32, 16))))


def gen_map_array(g):
    rng = g.rng(400)
    labels = rng.integers(0, 40, (31, 29)).astype(np.int32)
    g.save("in_map_labels", labels)
    in_vals = np.array([3, 7, 0, 12, 7, 39, 100, -5], dtype=np.int64)
    out_f = np.array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5])
    out_u8 = np.array([10, 20, 30, 40, 50, 60, 70, 80], dtype=np.uint8)
    g.save("in_map_vals", in_vals)
    g.save("in_map_out_f", out_f)
    g.save("in_map_out_u8", out_u8)
    g.save("map_labels_f", su.map_array(labels, in_vals, out_f))
    g.save("map_labels_u8", su.map_array(labels, in_vals, out_u8))
    cam = g.camera()
    lut_in = np.arange(0, 256, 3, dtype=np.int64)
    lut_out = (255 - lut_in).astype(np.uint16)
    g.save("in_map_lut_in", lut_in)
    g.save("in_map_lut_out", lut_out)
    g.save("map_camera", su.map_array(cam, lut_in, lut_out))
    # Keys wrap when cast to the image dtype (uint8): 300 -> 44.
    g.save("in_map_wrap_vals", np.array([300, 1], dtype=np.int64))
    g.save("map_camera_wrap", su.map_array(cam, np.array([300, 1]), np.array([9.0, 8.0])))


def gen_compare(g):
    cam = g.camera()
    inv = su.invert(cam)
    g.save("compare_diff", su.compare_images(cam, inv, method="diff"))
    g.save("compare_blend", su.compare_images(cam, inv, method="blend"))
    g.save("compare_checker", su.compare_images(cam, inv, method="checkerboard"))
    g.save("compare_checker_3_5", su.compare_images(cam, inv, method="checkerboard", n_tiles=(3, 5)))
    coins = g.coins()
    f32 = su.img_as_float32(coins)
    f64 = su.img_as_float64(su.invert(coins))
    g.save("in_compare_f32", f32)
    g.save("in_compare_f64", f64)
    g.save("compare_mixed_diff", su.compare_images(f32, f64, method="diff"))
    g.save("compare_mixed_blend", su.compare_images(f32, f64, method="blend"))
    g.save("compare_mixed_checker", su.compare_images(f32, f64, method="checkerboard", n_tiles=(4, 7)))
    g.save("compare_f32_blend", su.compare_images(f32, f32[::-1].copy(), method="blend"))


def gen_extras(g):
    for name, (shape, n) in {
        "seeds_2d": ((10, 20), 8),
        "seeds_3d": ((3, 50, 60), 40),
        "seeds_flat": ((3, 200), 30),
        "seeds_all": ((4, 5), 100),
    }.items():
        g.save(name, su.regular_seeds(shape, n))
    coords = np.array([[0.4, 1.5], [2.5, 3.49], [7.6, 0.0], [2.6, 3.1], [0, 0]], dtype=np.float64)
    g.save("in_label_points", coords)
    g.save("label_points", su.label_points(coords, (9, 5)))
    rng = g.rng(500)
    rows = rng.integers(0, 3, (40, 3)).astype(np.uint8)
    g.save("in_unique_rows_u8", rows)
    g.save("unique_rows_u8", su.unique_rows(rows))
    rows32 = (rng.integers(-2, 2, (50, 2)) * 300).astype(np.int32)
    g.save("in_unique_rows_i32", rows32)
    g.save("unique_rows_i32", su.unique_rows(rows32))
    ast = g.astronaut()
    g.save("slice_axes", su.slice_along_axes(ast, [(3, 10), (-20, -2)], axes=[1, 0]))


def generate(g):
    gen_dtype(g)
    gen_invert(g)
    gen_crop(g)
    gen_montage(g)
    gen_noise(g)
    gen_views(g)
    gen_map_array(g)
    gen_compare(g)
    gen_extras(g)
