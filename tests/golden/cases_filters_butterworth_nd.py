"""Golden outputs of skimage.filters.butterworth on images of more than 3 spatial axes, for
tests/filters/test_frequency.cpp (loaded as "filters_butterworth_nd/<name>.npy"); the CUDA backend
reaches these through extra C2C transforms over the leading axes. Inputs are saved as in_*.npy.
"""
import numpy as np
import skimage.filters as F


def generate(g):
    rng = g.rng(77)
    f64_4d = rng.uniform(-1, 1, (5, 6, 4, 7))
    f32_5d_c = rng.uniform(0, 1, (3, 4, 2, 5, 6)).astype(np.float32)  # channel_axis=2
    u8_6d = rng.integers(0, 256, (2, 3, 1, 4, 3, 5)).astype(np.uint8)
    f64_7d = rng.uniform(0, 5, (2, 3, 2, 3, 2, 2, 4))
    inputs = dict(f64_4d=f64_4d, f32_5d_c=f32_5d_c, u8_6d=u8_6d, f64_7d=f64_7d)
    for name, a in inputs.items():
        g.save(f"in_{name}", a)
    # (output name, input name, keyword arguments); the C++ test lists the same.
    cases = [
        ("bw_f64_4d", "f64_4d", dict(cutoff_frequency_ratio=0.2)),
        ("bw_f64_4d_low_npad", "f64_4d", dict(cutoff_frequency_ratio=0.1, high_pass=False, order=3.0, npad=2)),
        ("bw_f32_5d_c", "f32_5d_c", dict(cutoff_frequency_ratio=0.25, channel_axis=2, squared_butterworth=False)),
        ("bw_u8_6d", "u8_6d", dict(cutoff_frequency_ratio=0.15, high_pass=False)),
        ("bw_f64_7d", "f64_7d", dict(cutoff_frequency_ratio=0.3, npad=1)),
    ]
    for out, inp, kw in cases:
        g.save(out, F.butterworth(inputs[inp], **kw))
