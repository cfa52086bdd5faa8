#!/usr/bin/env python3
"""CPU checks of compare.py (no GPU, no CuPy needed):  python3 bench/compare/test_compare.py"""
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import compare  # noqa: E402


def bench_doc(entries):
    """A Google Benchmark JSON document with the given (name, real_time, unit[, extra]) entries."""
    out = []
    for e in entries:
        name, t, unit = e[:3]
        extra = e[3] if len(e) > 3 else {}
        b = {"name": name, "run_name": name, "run_type": "iteration", "iterations": 10,
             "real_time": t, "cpu_time": t, "time_unit": unit}
        b.update(extra)
        out.append(b)
    return {"context": {"date": "now"}, "benchmarks": out}


class ParseShape(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(compare.parse_shape("BM_Invert/uint8/8192x8192/manual_time"), (8192, 8192))
        self.assertEqual(compare.parse_shape("BM_Invert<uint8>/3840x2160"), (3840, 2160))
        self.assertEqual(compare.parse_shape("BM_Crop/192x192x192"), (192, 192, 192))
        self.assertEqual(compare.parse_shape("BM_Crop/2160/3840/manual_time"), (2160, 3840))
        self.assertEqual(compare.parse_shape("BM_Crop/512/manual_time"), (512, 512))
        self.assertEqual(compare.parse_shape("[2160, 3840]"), (2160, 3840))
        self.assertEqual(compare.parse_shape("[192, 192, 192]"), (192, 192, 192))
        self.assertEqual(compare.parse_shape("BM_Invert_u8/2/manual_time"), (8192, 8192))
        self.assertIsNone(compare.parse_shape("BM_Crop/manual_time"))

    def test_shape_key_ignores_order(self):
        self.assertEqual(compare.shape_key((3840, 2160)), compare.shape_key((2160, 3840)))


class OurResults(unittest.TestCase):
    def setUp(self):
        doc = bench_doc([
            ("BM_ImgAsFloat32/uint8/8192x8192/manual_time", 0.1, "ms"),
            ("BM_ImgAsFloat32/uint16/8192x8192/manual_time", 0.2, "ms"),
            ("BM_Invert/uint8/2160x3840/manual_time", 40.0, "us"),
            ("BM_Invert/uint8/2160x3840/cpu", 3.0, "ms"),
            ("BM_ImgAsFloat/uint16/512x512/manual_time", 5000.0, "ns"),
            ("BM_Crop/uint8/512x512/manual_time", 1.0, "ms", {"error_occurred": True}),
        ])
        self.tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(doc, self.tmp)
        self.tmp.close()
        self.ours = compare.read_bench_json([self.tmp.name])
        self.ops = {o.name: o for o in compare.load_ops()}

    def test_units_and_errors(self):
        by = {r.name: r for r in self.ours}
        self.assertAlmostEqual(by["BM_Invert/uint8/2160x3840/manual_time"].ms, 0.04)
        self.assertAlmostEqual(by["BM_ImgAsFloat/uint16/512x512/manual_time"].ms, 0.005)
        self.assertTrue(by["BM_Invert/uint8/2160x3840/cpu"].cpu)
        self.assertNotIn("BM_Crop/uint8/512x512/manual_time", by)

    def test_match(self):
        m = compare.match_ours
        self.assertAlmostEqual(m(self.ops["img_as_float32"], (8192, 8192), self.ours, cpu=False), 0.1)
        self.assertAlmostEqual(m(self.ops["invert"], (2160, 3840), self.ours, cpu=False), 0.04)
        self.assertAlmostEqual(m(self.ops["invert"], (2160, 3840), self.ours, cpu=True), 3.0)
        self.assertIsNone(m(self.ops["invert"], (512, 512), self.ours, cpu=False))
        # img_as_float must not pick up img_as_float32's benchmark, nor the other way round.
        self.assertAlmostEqual(m(self.ops["img_as_float"], (512, 512), self.ours, cpu=False), 0.005)
        self.assertIsNone(m(self.ops["img_as_float"], (8192, 8192), self.ours, cpu=False))
        self.assertIsNone(m(self.ops["crop (copy)"], (512, 512), self.ours, cpu=False))

    def test_bench_util_names(self):
        # bench/util's form: shape index argument, shape in the label, short dtype suffix.
        doc = bench_doc([
            ("BM_Invert_u8/2/manual_time", 0.03, "ms", {"label": "[8192, 8192]"}),
            ("BM_ImgAsFloat32_u8/1/manual_time", 0.02, "ms", {"label": "[2160, 3840]"}),
            ("BM_ImgAsFloat_u16/1/manual_time", 0.05, "ms", {"label": "[2160, 3840]"}),
            ("BM_Cpu_Invert_u8/3/manual_time", 1.5, "ms", {"label": "[192, 192, 192]"}),
            ("BM_CropCopy_u8/0/manual_time", 0.004, "ms", {"label": "[512, 512]"}),
        ])
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        ours = compare.read_bench_json([f.name])
        m = compare.match_ours
        self.assertAlmostEqual(m(self.ops["invert"], (8192, 8192), ours, cpu=False), 0.03)
        self.assertAlmostEqual(m(self.ops["invert"], (192, 192, 192), ours, cpu=True), 1.5)
        self.assertIsNone(m(self.ops["invert"], (192, 192, 192), ours, cpu=False))
        self.assertAlmostEqual(m(self.ops["img_as_float32"], (2160, 3840), ours, cpu=False), 0.02)
        self.assertAlmostEqual(m(self.ops["img_as_float"], (2160, 3840), ours, cpu=False), 0.05)
        self.assertAlmostEqual(m(self.ops["crop (copy)"], (512, 512), ours, cpu=False), 0.004)
        self.assertIsNone(m(self.ops["img_as_ubyte"], (512, 512), ours, cpu=False))

    def test_aggregates_prefer_median(self):
        doc = bench_doc([("BM_Invert/uint8/512x512/manual_time", 9.0, "ms")])
        doc["benchmarks"].append({"name": "BM_Invert/uint8/512x512/manual_time_median",
                                  "run_name": "BM_Invert/uint8/512x512/manual_time", "run_type": "aggregate",
                                  "aggregate_name": "median", "real_time": 2.0, "time_unit": "ms"})
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        ours = compare.read_bench_json([f.name])
        self.assertEqual(len(ours), 1)
        self.assertAlmostEqual(ours[0].ms, 2.0)


class Table(unittest.TestCase):
    def rows(self):
        return [compare.Row("invert", (8192, 8192), "uint8", ours=0.04, cupy=0.05, cucim=None, skimage=30.0),
                compare.Row("crop (copy)", (512, 512), "uint8")]

    def test_text(self):
        lines = compare.table_lines(self.rows(), markdown=False)
        self.assertIn("cuskimage ms", lines[0])
        self.assertIn("1.25x", lines[2])
        self.assertIn("750.0x", lines[2])
        self.assertIn(compare.DASH, lines[2])  # no cuCIM
        self.assertEqual(lines[3].count(compare.DASH), 7)
        self.assertNotIn("CPU", lines[0])

    def test_markdown(self):
        lines = compare.table_lines(self.rows(), markdown=True)
        self.assertTrue(lines[0].startswith("| op | shape | dtype | cuskimage ms |"))
        self.assertTrue(lines[1].startswith("|---|---|---|---:|"))
        self.assertEqual(len(lines), 4)
        self.assertTrue(all(l.startswith("|") and l.endswith("|") for l in lines))

    def test_cpu_column_only_when_present(self):
        rows = self.rows()
        rows[0].ours_cpu = 2.0
        self.assertIn("cuskimage CPU ms", compare.table_lines(rows, markdown=False)[0])


class Ops(unittest.TestCase):
    def test_every_op_is_complete(self):
        ops = compare.load_ops()
        self.assertGreaterEqual(len(ops), 6)
        for o in ops:
            self.assertIn(o.dtype, compare.DTYPE_NAMES, o.name)
            self.assertTrue(o.cupy or o.cucim or o.skimage, o.name)
            self.assertTrue(o.shapes)

    def test_inputs(self):
        import numpy as np
        for dt in ("uint8", "uint16", "float32", "bool"):
            x = compare.test_image(np, (7, 9), dt)
            self.assertEqual(x.shape, (7, 9))
            self.assertEqual(x.dtype, np.dtype(dt))
        f = compare.test_image(np, (3, 4, 5), "float32")
        self.assertGreaterEqual(float(f.min()), 0.0)
        self.assertLessEqual(float(f.max()), 1.0)

    def test_skimage_callables_run(self):
        import numpy as np
        libs = compare.Libs(want_gpu=False)
        if libs.skimage is None:
            self.skipTest("scikit-image not installed")
        for o in compare.load_ops():
            if o.skimage is None:  # no scikit-image counterpart (cuCIM-only operations)
                continue
            shape = o.shapes[0]
            small = (32, 40) if len(shape) == 2 else (8, 12, 10)  # the op's ndim
            if len(shape) == 3 and shape[-1] in (3, 4):  # an RGB(A) image, not a volume
                small = (32, 40, shape[-1])
            x = (o.make_input or compare.test_image)(np, small, o.dtype)
            out = o.skimage(libs, x)
            self.assertIsNotNone(out, o.name)


class ResultsRows(unittest.TestCase):
    def test_modules_from_file_names(self):
        ops = {o.name: o for o in compare.load_ops()}
        self.assertEqual(ops["invert"].module, "util")
        self.assertEqual(ops["sobel"].module, "filters")
        self.assertEqual(ops["threshold_otsu"].module, "filters")  # ops_threshold.py
        self.assertEqual(ops["distance_transform_edt blobs"].module, "ndimage")  # set on the op

    def test_floor_and_bench_name_reach_the_rows(self):
        doc = bench_doc([("BM_Invert_u8/2/manual_time", 0.04, "ms", {"label": "[8192, 8192]", "floor_ms": 0.032})])
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        ours = compare.read_bench_json([f.name])
        self.assertAlmostEqual(ours[0].floor_ms, 0.032)
        op = next(o for o in compare.load_ops() if o.name == "invert")
        mine = compare.match_result(op, (8192, 8192), ours, cpu=False)
        self.assertEqual(mine.name, "BM_Invert_u8/2/manual_time")
        row = compare.Row("invert", (8192, 8192), "uint8", ours=0.04, cupy=0.3, module="util",
                          bench="BM_Invert_u8/2", floor=0.032)
        out = compare.results_rows([row], "versions")
        self.assertEqual(out, [{"module": "util", "op": "invert", "shape": "8192x8192", "dtype": "uint8",
                                "ours": 0.04, "floor": 0.032, "cupy": 0.3, "cucim": None, "skimage": None,
                                "source": "compare.py: versions", "bench": "BM_Invert_u8/2"}])


class Main(unittest.TestCase):
    def test_skimage_only_end_to_end(self):
        if compare.Libs(want_gpu=False).skimage is None:
            self.skipTest("scikit-image not installed")
        doc = bench_doc([("BM_Invert/uint8/512x512/manual_time", 0.01, "ms")])
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = compare.main(["--skimage-only", "--shapes", "512x512", "--ops", "^invert$|^crop",
                               "--bench-json", f.name, "--markdown", "--cpu-repeat", "2"])
        self.assertEqual(rc, 0, err.getvalue())
        lines = [l for l in out.getvalue().splitlines() if l.startswith("|")]
        self.assertEqual(len(lines), 4, out.getvalue())
        invert = next(l for l in lines if l.startswith("| invert"))
        cells = [c.strip() for c in invert.strip("|").split("|")]
        self.assertEqual(cells[:4], ["invert", "512x512", "uint8", "0.010"])
        self.assertEqual(cells[4:6], [compare.DASH, compare.DASH])  # no CuPy / cuCIM here
        self.assertNotEqual(cells[6], compare.DASH)  # skimage timed
        self.assertTrue(cells[9].endswith("x"))

    def test_list(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(compare.main(["--list"]), 0)
        self.assertIn("img_as_float32\tuint8", out.getvalue())


if __name__ == "__main__":
    unittest.main()
