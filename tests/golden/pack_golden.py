#!/usr/bin/env python3
"""Packs golden directories into one archive per case module, losslessly.

tests/golden/data/<case>/<name> files become entries <name> of tests/golden/data/<case>.npz, a zip
archive as np.savez_compressed writes (np.load reads it; the C++ tests read it with
tests/common/golden_data.cpp). Files are copied byte for byte, nothing is regenerated. When the
archive exists already, the directory's files are merged into it (added, or replacing the entry of
the same name: the tests read a directory's file before the archive's). The archive is checked
against its sources before the directory is removed.

Archives are deterministic: entries sorted by name, fixed timestamps and attributes, DEFLATE at
level 9, so packing the same files again gives the same bytes (with the same zlib).

    python3 tests/golden/pack_golden.py            # every directory under tests/golden/data
    python3 tests/golden/pack_golden.py util io    # some case modules
    python3 tests/golden/pack_golden.py --keep io  # leave the directory in place
"""
import argparse
import os
import pathlib
import shutil
import sys
import zipfile

DATA = pathlib.Path(__file__).resolve().parent / "data"
DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can record


def archive_of(case_dir):
    return case_dir.parent / f"{case_dir.name}.npz"


def read_archive(path):
    """{entry name: bytes} of an archive (CRCs checked)."""
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def write_archive(path, files):
    """Writes {name: bytes} as a deterministic zip, atomically (temporary file, then rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with zipfile.ZipFile(tmp, "w") as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix, whichever system packs
            info.external_attr = 0o100644 << 16
            z.writestr(info, files[name], compresslevel=9)
    os.replace(tmp, path)


def directory_files(case_dir):
    files = {}
    for p in sorted(case_dir.iterdir()):
        if not p.is_file() or p.is_symlink():
            sys.exit(f"pack_golden.py: {p} is not a plain file; case directories hold files only")
        files[p.name] = p.read_bytes()
    return files


def pack(case_dir, merge=True, keep=False):
    """Packs case_dir into its archive; returns (added, replaced, kept) counts."""
    case_dir = pathlib.Path(case_dir)
    archive = archive_of(case_dir)
    new = directory_files(case_dir)
    old = read_archive(archive) if merge and archive.exists() else {}
    files = {**old, **new}
    write_archive(archive, files)
    if read_archive(archive) != files:  # lossless, or nothing is removed
        sys.exit(f"pack_golden.py: {archive} does not read back as its sources; {case_dir} kept")
    if not keep:
        shutil.rmtree(case_dir)
    replaced = sum(1 for n in new if n in old)
    return len(new) - replaced, replaced, len(old) - replaced


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="case modules (directories under tests/golden/data); default: all")
    ap.add_argument("--keep", action="store_true", help="keep the directories after packing")
    ap.add_argument("--data", type=pathlib.Path, default=DATA, help="the golden data directory")
    args = ap.parse_args(argv)
    dirs = [args.data / c for c in args.cases] if args.cases else sorted(p for p in args.data.iterdir() if p.is_dir())
    for d in dirs:
        if not d.is_dir():
            sys.exit(f"pack_golden.py: no directory {d}")
        added, replaced, kept = pack(d, keep=args.keep)
        print(f"{archive_of(d).name}: {added} added, {replaced} replaced, {kept} kept "
              f"({archive_of(d).stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
