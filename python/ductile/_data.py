"""Where the shipped scenes/ and assets/ are: beside an installed package (PREFIX/share/ductile, the module being in
PREFIX/lib/python3/dist-packages/ductile), else the source tree the module was built from."""
import pathlib

from ._ductile import data_dir as _built_from


def _find():
    # This file is PREFIX/lib/python3/dist-packages/ductile/_data.py when installed.
    installed = pathlib.Path(__file__).resolve().parents[4] / "share" / "ductile"
    if (installed / "scenes").is_dir():
        return str(installed)
    return _built_from


data_dir = _find()
