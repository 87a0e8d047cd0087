"""The Python binding's per-step overhead against ductile-cli on the same scene (issue 24): ms per step of
sim.step() in a Python loop, with and without reading the particle positions each step, against
`ductile-cli bench SCENE --duration D`'s ms per step, in alternating runs.

    PYTHONPATH=build/release/python python3 bench/python_overhead.py scenes/dough_drop.yaml --duration 0.5 --runs 3
"""
import argparse
import pathlib
import subprocess
import time

import ductile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def python_ms(scene, duration, threads, read):
    sim = ductile.Simulator(scene, threads=threads)
    steps = round(duration / sim.dt)
    start = time.perf_counter()
    for _ in range(steps):
        sim.step()
        if read:
            sim.particle_positions()
    return 1e3 * (time.perf_counter() - start) / steps, sim.num_particles


def cli_ms(cli, scene, duration, threads):
    out = subprocess.run([cli, "bench", scene, "--duration", str(duration), "--threads", str(threads), "--quiet"],
                         capture_output=True, text=True, check=True).stdout
    # The row: scene, h, particles, n_v avg, dt, N, ms/step, ... (docs/cli.md, "bench").
    row = [line for line in out.splitlines() if line.strip()][-1].split()
    return float(row[6])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene")
    parser.add_argument("--duration", type=float, default=0.5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli", default=str(ROOT / "build" / "release" / "app" / "cli" / "ductile-cli"))
    args = parser.parse_args()
    print("run  cli ms/step  python ms/step  python+positions ms/step")
    for run in range(args.runs):
        c = cli_ms(args.cli, args.scene, args.duration, args.threads)
        p, n = python_ms(args.scene, args.duration, args.threads, read=False)
        r, _ = python_ms(args.scene, args.duration, args.threads, read=True)
        print(f"{run:3d}  {c:11.3f}  {p:14.3f}  {r:24.3f}   ({n} particles)")


if __name__ == "__main__":
    main()
