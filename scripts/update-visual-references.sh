#!/usr/bin/env bash
# Draws the visual references again (test/integration/visual/references/): after a change to the
# workstation's look that is meant, or a new Chromium. Look at every new PNG before committing.
# The references hold what Debian's Chromium draws with Debian's DejaVu fonts (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
CLRSCOPE_UPDATE_VISUAL=1 node --enable-source-maps --test --test-reporter=spec dist/test/integration/workstation-visual.test.js
git status --short test/integration/visual/references
