"""The rolling and spinning ball figures of docs/architecture.md ("Domains and couplings": the ball on the slope).

rolling: runs scenes/ball_on_slope.yaml with ductile-cli (extra --set overrides after the options) and fits the
ball's centre-of-mass travel along the slope, s(t) = a t²/2 + ..., by least squares over windows of 0.2 s and over
[0.1, 0.5] s, to compare with g sin θ/(1 + κ + h²/(2R²)) (3.38 m/s² for the sampled ball on this grid).

    PYTHONPATH=build/release/python python3 bench/rolling_ball.py rolling --set rigid_bodies.ramp.friction=0.5

spin: a 5 cm rubber ball without gravity, every particle set to ω × (x − c) at 30 rad/s, stepped for 0.4 s: its
mean distance from its centre of mass against the start's, and its spin Σ r × v / Σ r² (the first step loses the
part APIC's C carries, about 11%, as the velocities are set without it).

    PYTHONPATH=build/release/python python3 bench/rolling_ball.py spin --coupling strong --dt 0.01

hops: the rolling ball (μ = 0.5) stepped from Python for 0.4 s: every 4th step its particle contacts and its mean
velocity along the slope's normal and its centre's height above the face.

    PYTHONPATH=build/release/python python3 bench/rolling_ball.py hops
"""
import argparse
import csv
import math
import pathlib
import subprocess
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLI = ROOT / "build" / "release" / "app" / "cli" / "ductile-cli"
THETA = math.radians(30)  # the ramp's pitch in scenes/ball_on_slope.yaml


def rolling(overrides, duration):
    with tempfile.TemporaryDirectory() as tmp:
        probes = pathlib.Path(tmp) / "p.csv"
        args = [str(CLI), "run", str(ROOT / "scenes" / "ball_on_slope.yaml"), "--probes", str(probes), "--quiet",
                "--duration", str(duration)]
        for o in overrides:
            args += ["--set", o]
        subprocess.run(args, check=True)
        samples = {}
        with open(probes) as f:
            for row in csv.DictReader(f):
                if row["probe"] == "ball_com":
                    samples.setdefault(float(row["time"]), {})[row["component"]] = float(row["value"])
    t = np.array(sorted(samples))
    s = np.array([samples[k]["x"] * math.cos(THETA) - samples[k]["z"] * math.sin(THETA) for k in t])
    s = np.abs(s - s[0])  # the travel down the slope
    windows = [(lo, lo + 0.2) for lo in np.arange(0.0, duration - 0.2 + 1e-9, 0.1)] + [(0.1, 0.5)]
    for lo, hi in windows:
        m = (t >= lo - 1e-9) & (t <= hi + 1e-9)
        print(f"[{lo:.1f}, {hi:.1f}] s: a = {2 * np.polyfit(t[m], s[m], 2)[0]:.3f} m/s²")


def spin(coupling, dt, omega, substeps):
    import ductile
    yaml = f"""
simulation: {{dt: {dt}, substeps: {substeps}, coupling: {coupling}, gravity: [0, 0, 0]}}
grid: {{h: 0.015625, domain: {{min: [-0.3, -0.3, -0.3], max: [0.3, 0.3, 0.3]}}}}
materials:
  rubber: {{model: fixed_corotated, density: 1000, youngs_modulus: 1.0e6, poisson_ratio: 0.3}}
objects:
  ball: {{material: rubber, shape: {{type: sphere, radius: 0.05}}, pose: {{position: [0, 0, 0]}}}}
"""
    sim = ductile.Simulator.from_yaml(yaml)
    x = sim.particle_positions().astype(float)
    c = x.mean(0)
    r0 = np.linalg.norm(x - c, axis=1).mean()
    sim.set_particle_velocities(np.cross([0, omega, 0], x - c).astype(np.float32))
    steps = int(round(0.1 / dt))
    for _ in range(4):
        sim.step(steps)
        x = sim.particle_positions().astype(float)
        v = sim.particle_velocities().astype(float)
        r = x - x.mean(0)
        about_y = (r[:, 0] ** 2 + r[:, 2] ** 2).sum()
        print(f"t = {sim.time:.2f} s: mean radius / start {np.linalg.norm(r, axis=1).mean() / r0:.4f}, "
              f"spin {np.cross(r, v).sum(0)[1] / about_y:.2f} rad/s")


def hops():
    import ductile
    sim = ductile.Simulator(str(ROOT / "scenes" / "ball_on_slope.yaml"), overrides=["rigid_bodies.ramp.friction=0.5"])
    n = np.array([math.sin(THETA), 0, math.cos(THETA)])  # the ramp's top face normal; the face is at n·x = 0.05
    for k in range(40):
        sim.step()
        if k % 4 == 3:
            c = sim.particle_positions().astype(float).mean(0)
            v = sim.particle_velocities().astype(float).mean(0)
            print(f"t = {sim.time:.2f} s: {sim.telemetry()['mpm_contacts']} contacts, normal velocity {v @ n:+.3f} m/s, "
                  f"centre {1e3 * (c @ n - 0.05):.2f} mm above the face")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("rolling")
    r.add_argument("--set", action="append", default=[], help="an override for ductile-cli run (repeatable)")
    r.add_argument("--duration", type=float, default=0.6)
    s = sub.add_parser("spin")
    s.add_argument("--coupling", default="strong", choices=["weak", "strong"])
    s.add_argument("--dt", type=float, default=0.01)
    s.add_argument("--omega", type=float, default=30.0)
    s.add_argument("--substeps", type=int, default=1)
    sub.add_parser("hops")
    a = parser.parse_args()
    if a.what == "rolling":
        rolling(a.set, a.duration)
    elif a.what == "hops":
        hops()
    else:
        spin(a.coupling, a.dt, a.omega, a.substeps)


if __name__ == "__main__":
    main()
