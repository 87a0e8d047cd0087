"""Small scenes as YAML text that several test files load with Simulator.from_yaml."""

# A 6 cm rubber cube (h = 2 cm, 8 particles per cell: 216 particles) dropping 2 cm onto a static table, and a box
# of 0.5 kg beside it: small enough for a step of a few milliseconds. Four substeps of 0.5 ms keep E up to 2e5 Pa
# within the explicit step's limit (wave speed 16 m/s: 0.4 of a cell per substep).
CUBE = """
simulation: {dt: 2.0e-3, substeps: 4}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}, boundary: {type: separate}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 5.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.06, 0.06, 0.06]}, pose: {position: [0, 0, 0.15]}}
rigid_bodies:
  table: {type: static, shape: {type: box, size: [0.3, 0.3, 0.1]}, pose: {position: [0, 0, 0.05]}}
  box: {shape: {type: box, size: [0.04, 0.04, 0.04]}, mass: 0.5, pose: {position: [0.1, 0.1, 0.13]}}
"""
