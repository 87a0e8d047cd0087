#!/usr/bin/env python3
"""scripts/check-layers on the engine's sources as they are (it passes) and with planted includes (it fails)."""
import importlib.machinery
import importlib.util
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.dont_write_bytecode = True
import ratchet  # noqa: E402

_loader = importlib.machinery.SourceFileLoader("check_layers", str(ROOT / "scripts" / "check-layers"))
_spec = importlib.util.spec_from_loader("check_layers", _loader)
layers = importlib.util.module_from_spec(_spec)
_loader.exec_module(layers)


def errors_for(sources):
    """The ratchet's errors for `sources` against the committed list."""
    listed = ratchet.read(layers.ALLOWLIST, 2)
    return ratchet.compare(layers.measure(sources), listed, "includes", "")[0]


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.sources = layers.tracked_sources()

    def test_the_tree_passes(self):
        self.assertEqual(errors_for(self.sources), [])

    def test_an_upward_include_fails(self):
        # The multibody folder reaching up to the Workspace of step/.
        path = "engine/src/multibody/spatial.h"
        self.assertIn(path, self.sources)
        self.sources[path] += '\n#include "step/workspace.h"\n'
        errors = errors_for(self.sources)
        self.assertEqual(len(errors), 1)
        self.assertIn(path, errors[0])
        self.assertIn("step", errors[0])

    def test_a_public_header_counts_by_its_folder(self):
        # ductile/simulator.h belongs to step: core may not include it.
        path = "engine/src/core/archive.h"
        self.assertIn(path, self.sources)
        self.sources[path] += '\n#include "ductile/simulator.h"\n'
        self.assertEqual(len(errors_for(self.sources)), 1)

    def test_one_more_include_of_a_listed_pair_fails(self):
        listed = ratchet.read(layers.ALLOWLIST, 2)
        (path, folder), _ = sorted(listed.items())[0]
        self.sources[path] += f'\n#include "{folder}/planted.h"\n'
        errors = errors_for(self.sources)
        self.assertEqual(len(errors), 1)
        self.assertTrue(errors[0].startswith("grew:"))

    def test_a_cycle_within_a_level_fails(self):
        # contact includes multibody today, not the other way; multibody including contact closes a cycle on their
        # level, and every include on it counts (the planted one and contact's).
        pairs = {(a, b) for _, a, b in layers.includes(self.sources)}
        self.assertIn(("contact", "multibody"), pairs)
        self.assertNotIn(("multibody", "contact"), pairs)
        path = "engine/src/multibody/spatial.h"
        self.sources[path] += '\n#include "contact/contact_frame.h"\n'
        errors = errors_for(self.sources)
        self.assertTrue(any(path in e and "contact" in e for e in errors))
        self.assertTrue(any("engine/src/contact/" in e and "multibody" in e for e in errors))

    def test_a_downward_include_passes(self):
        self.sources["engine/src/step/step.cpp"] += '\n#include "core/archive.h"\n'
        self.assertEqual(errors_for(self.sources), [])


if __name__ == "__main__":
    unittest.main()
