"""Ductile: robot manipulation of deformable material, MPM and rigid bodies with frictional contact.

    import ductile
    sim = ductile.Simulator("scenes/dough_rolling.yaml", overrides=["materials.dough.youngs_modulus=3e4"])
    sim.step(10)
    x = sim.particle_positions()  # N x 3 float32, particle id order

See docs/python.md.
"""
from ._ductile import (  # noqa: F401  (the public names)
    Exporter,
    SceneError,
    SimulationDiverged,
    Simulator,
    StateError,
    VideoWriter,
    __version__,
)
from ._data import data_dir  # noqa: F401
from .optimize import optimize  # noqa: F401

__all__ = ["Exporter", "Simulator", "SceneError", "StateError", "SimulationDiverged", "VideoWriter", "__version__", "data_dir",
           "optimize"]
