#!/usr/bin/env bash
# Rebuild sample_vault/ from its transcripts, byte for byte (the clock is pinned).
set -euo pipefail
cd "$(dirname "$0")/../sample_vault"
mdmem=${MDMEM:-../.venv/bin/mdmem}
rm -rf facts episodes .mdmem rules.yaml
export MDMEM_NOW=2026-02-10T20:00:00Z
"$mdmem" init . --rules personal
"$mdmem" ingest transcripts/2025-08-15-en.md transcripts/2026-02-10-en.md --vault .
rm -f .mdmem/lock .mdmem/snapshot*.json .mdmem/written.json .mdmem/index.sqlite*
