"""Golden outputs of skimage.segmentation's boundaries, clear_border, expand_labels and _join for
tests/segmentation/test_{boundaries,clear_border,expand_labels,join}.cpp (loaded as
"segmentation_boundaries/<name>.npy").

Inputs: blocky random label images lab_<key> (2-D int32 / uint8 / bool / float32, 3-D uint16)
and sparse seeds seeds_<key> (2-D int32, 3-D uint8). Outputs:
  fb_<key>_<mode>_c<conn>[_bg<b>]   find_boundaries
  mb_<name>                          mark_boundaries on img_gray / img_rgb (see below)
  cb_<key>[_<variant>]               clear_border (buffer_size 2, bgval 7, mask)
  el_<key>_d<distance>[_sp]          expand_labels (spacing (1, 2) for _sp)
  rs_<key>_o<offset>_{out,in,map}    relabel_sequential: relabelled, forward in_values / out_values
  js_{out,m1in,m1out,m2out}          join_segmentations(s1, s2, return_mapping=True)
"""
import numpy as np
from skimage.segmentation import (clear_border, expand_labels, find_boundaries, join_segmentations,
                                  mark_boundaries, relabel_sequential)


def blocky(rng, shape, block, nlab):
    coarse = rng.integers(0, nlab, tuple(-(-s // block) for s in shape))
    big = coarse
    for ax in range(len(shape)):
        big = np.repeat(big, block, axis=ax)
    return big[tuple(slice(0, s) for s in shape)]


def generate(g):
    rng = g.rng(2126)
    labs = {
        "i32": blocky(rng, (40, 48), 4, 6).astype(np.int32),
        "u8": blocky(rng, (33, 29), 3, 4).astype(np.uint8),
        "b": blocky(rng, (30, 31), 5, 2).astype(bool),
        "f32": blocky(rng, (24, 26), 3, 5).astype(np.float32),
        "u16_3d": blocky(rng, (10, 12, 14), 3, 4).astype(np.uint16),
    }
    labs["i32"][10:14, 10:30] = 255  # a large value (subpixel's filler is the dtype's maximum)
    for key, lab in labs.items():
        g.save(f"lab_{key}", lab)
        nd = lab.ndim
        for mode in ["thick", "inner", "outer", "subpixel"]:
            if key == "f32" and mode in ("outer", "subpixel"):
                continue
            for conn in range(1, nd + 1):
                g.save(f"fb_{key}_{mode}_c{conn}", find_boundaries(lab, connectivity=conn, mode=mode))
        if key == "i32":
            for mode in ["inner", "outer"]:
                g.save(f"fb_{key}_{mode}_c1_bg2", find_boundaries(lab, mode=mode, background=2))
        # clear_border
        g.save(f"cb_{key}", clear_border(lab))
        if key in ("i32", "u16_3d"):
            g.save(f"cb_{key}_buf2", clear_border(lab, buffer_size=2))
            g.save(f"cb_{key}_bg7", clear_border(lab, bgval=7))
    mask = np.ones((40, 48), bool)
    mask[:6, :] = False
    mask[:, 40:] = False
    g.save("cb_mask", mask)
    g.save("cb_i32_mask", clear_border(labs["i32"], mask=mask))

    # mark_boundaries
    img_gray = rng.uniform(0, 1, (40, 48))
    img_rgb = rng.integers(0, 256, (40, 48, 3)).astype(np.uint8)
    g.save("img_gray", img_gray)
    g.save("img_rgb", img_rgb)
    lab = labs["i32"]
    g.save("mb_gray_outer", mark_boundaries(img_gray, lab))
    g.save("mb_rgb_thick_outline", mark_boundaries(img_rgb, lab, color=(1, 0, 0), outline_color=(0, 0.5, 1),
                                                   mode="thick"))
    g.save("mb_gray_inner_bg2", mark_boundaries(img_gray.astype(np.float32), lab, mode="inner", background_label=2))
    g.save("mb_gray_subpixel", mark_boundaries(img_gray, lab, mode="subpixel"))

    # expand_labels
    seeds2 = np.zeros((40, 48), np.int32)
    pts = rng.integers(0, [40, 48], (12, 2))
    seeds2[pts[:, 0], pts[:, 1]] = np.arange(1, 13)
    seeds2[20:24, 5:9] = 40
    seeds3 = np.zeros((10, 12, 14), np.uint8)
    p3 = rng.integers(0, [10, 12, 14], (6, 3))
    seeds3[p3[:, 0], p3[:, 1], p3[:, 2]] = np.arange(3, 9)
    g.save("seeds_i32", seeds2)
    g.save("seeds_u8_3d", seeds3)
    for d in (1, 3, 5.5):
        g.save(f"el_i32_d{d}", expand_labels(seeds2, distance=d))
        g.save(f"el_u8_3d_d{d}", expand_labels(seeds3, distance=d))
    g.save("el_i32_d3_sp", expand_labels(seeds2, distance=3, spacing=(1, 2)))

    # relabel_sequential
    rl = {
        "i32": rng.choice(np.array([0, 5, 17, 1000, 70000], np.int32), (20, 22)),
        "u8": rng.choice(np.arange(1, 256, 3).astype(np.uint8), (16, 17)),
        "u16_3d": rng.choice(np.array([0, 3, 9, 65000], np.uint16), (5, 6, 7)),
    }
    for key, lab in rl.items():
        g.save(f"rl_{key}", lab)
        for off in (1, 5, 250):
            out, fw, inv = relabel_sequential(lab, offset=off)
            g.save(f"rs_{key}_o{off}_out", out)
            g.save(f"rs_{key}_o{off}_in", fw.in_values)
            g.save(f"rs_{key}_o{off}_map", fw.out_values)

    # join_segmentations
    s1 = blocky(rng, (30, 32), 4, 4).astype(np.int32) * 3
    s2 = blocky(rng, (30, 32), 3, 5).astype(np.uint8) + 2
    s2[:5] = 0
    g.save("js_s1", s1)
    g.save("js_s2", s2)
    j, m1, m2 = join_segmentations(s1, s2, return_mapping=True)
    g.save("js_out", j)
    g.save("js_m1in", m1.in_values)
    g.save("js_m1out", m1.out_values)
    g.save("js_m2out", m2.out_values)
