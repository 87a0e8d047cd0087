#!/usr/bin/env bash
# Runs a GUI test program on the display in $DISPLAY, or on a private Xvfb server when there is none.
set -euo pipefail
export LP_NUM_THREADS="${LP_NUM_THREADS:-2}"
if [ -n "${DISPLAY:-}" ]; then
  exec "$@"
fi
exec xvfb-run -a -s "-screen 0 1600x1000x24" "$@"
