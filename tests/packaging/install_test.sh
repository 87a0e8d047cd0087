#!/usr/bin/env bash
# The .deb (packaging/CMakeLists.txt) installed into a clean directory tree: cpack builds it from the build tree
# given as $1, dpkg -x unpacks it, and the installed tools run from there: `ductile-cli validate` on every installed
# scene (their robots and meshes found through the installed assets), the studio's --help and a second of its default
# scene (offscreen Qt, no viewport), and the installed Python
# module imported (not the build tree's), its data_dir the installed share folder, a scene stepped.
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$build" && cpack -G DEB -B "$tmp/package" >"$tmp/cpack.txt" 2>&1) || { echo "cpack failed:"; cat "$tmp/cpack.txt"; exit 1; }
deb=$(ls "$tmp"/package/ductile_*.deb)
info=$(dpkg-deb --info "$deb")  # not piped into grep -q, whose early exit would SIGPIPE dpkg-deb under pipefail
[[ "$info" == *"Depends: "*"python3-numpy"* ]] || { echo "the package does not depend on python3-numpy:"; echo "$info"; exit 1; }
dpkg -x "$deb" "$tmp/root"
root="$tmp/root"
count=0
for scene in "$root"/usr/share/ductile/scenes/*.yaml; do
  "$root/usr/bin/ductile-cli" validate "$scene" >"$tmp/validate.txt" 2>&1 ||
    { echo "installed validate failed: $scene"; cat "$tmp/validate.txt"; exit 1; }
  count=$((count + 1))
done
[ "$count" -ge 20 ] || { echo "only $count scenes installed"; exit 1; }
if [ -x "$root/usr/bin/ductile" ]; then
  QT_QPA_PLATFORM=offscreen "$root/usr/bin/ductile" --help >/dev/null
  # The installed studio on its default scene (the installed dough rolling) for a second of wall time.
  QT_QPA_PLATFORM=offscreen timeout 120 "$root/usr/bin/ductile" --measure 1 >"$tmp/studio.txt" 2>&1 ||
    { echo "the installed studio failed:"; cat "$tmp/studio.txt"; exit 1; }
  grep -q "real-time factor" "$tmp/studio.txt" || { echo "no measurement from the installed studio:"; cat "$tmp/studio.txt"; exit 1; }
fi
for f in usr/share/applications/ductile.desktop usr/share/icons/hicolor/scalable/apps/ductile.svg \
         usr/share/metainfo/org.ductile.Ductile.metainfo.xml usr/share/doc/ductile/python.md; do
  [ -f "$root/$f" ] || { echo "missing $f"; exit 1; }
done
cd "$tmp"
PYTHONPATH="$root/usr/lib/python3/dist-packages" /usr/bin/python3 - "$root" <<'PY'
import pathlib
import sys

import ductile

root = pathlib.Path(sys.argv[1]).resolve()
assert pathlib.Path(ductile.__file__).resolve().is_relative_to(root), ductile.__file__
assert pathlib.Path(ductile.data_dir).resolve() == root / "usr" / "share" / "ductile", ductile.data_dir
sim = ductile.Simulator(str(pathlib.Path(ductile.data_dir) / "scenes" / "gripper_pinch_lift.yaml"))
sim.step(2)
print(f"installed: ductile {ductile.__version__}, {sim.num_particles} particles at t = {sim.time:.3f} s")
PY
echo "package: $(basename "$deb"), $count scenes validated"
