#!/usr/bin/env bash
# The API guard (issue 32): api/<package>.txt records the exported API of
# every package a user can import; api/baseline names the release callers
# have.
#   bash .ci/api.sh            check: api/*.txt matches the code, and every
#                              incompatible change since api/baseline has a
#                              **Breaking** entry in CHANGELOG.md (apidiff)
#   bash .ci/api.sh update     rewrite api/*.txt from the code
#   bash .ci/api.sh baseline REV   record REV (a release tag) in api/baseline
# The checker is internal/tools/cmd/apicheck, built from the tools module
# (its go.sum pins golang.org/x/exp/apidiff and golang.org/x/tools).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go -C internal/tools run ./cmd/apicheck -root "$PWD" "${@:-check}"
