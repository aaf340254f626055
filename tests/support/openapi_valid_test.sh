#!/usr/bin/env bash
# openapi_valid_test.sh OPENAPI_DUMP: the OpenAPI document of the HTTP/JSON
# transport (printed by OPENAPI_DUMP) must be valid against the official
# OpenAPI 3.0 schema. Needs node and @seriousme/openapi-schema-validator under
# GNOMON_TOOLS_DIR (scripts/test installs them); fails, not skips, without.
set -euo pipefail
dump=${1:?usage: openapi_valid_test.sh OPENAPI_DUMP}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v node >/dev/null || { echo "FAIL: node not found (scripts/test installs it)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$dump" >"$tmp/openapi.json"
node "$here/validate_openapi.mjs" "$tmp/openapi.json"
