#!/usr/bin/env bash
# The console's browser tests (console/e2e/*.e2e.mjs: the screens, the
# workflow screens, a job paused after failures, calendars, alarm channels, then pools) against a real gnomond
# serving the built console, with a sample executor online; before them the
# graph layout's unit test.
# Usage: console_test.sh GNOMOND GNOMONCTL SAMPLE_EXECUTOR CONSOLE_DIST [SCREENSHOT_BASE]
set -euo pipefail

gnomond=$1 gnomonctl=$2 executor=$3 dist=$4
shots=${SCREENSHOT_DIR:-${5:-$PWD/console-screenshots}}
here=$(cd "$(dirname "$0")" && pwd)
console=$(cd "$here/../../console" && pwd)

die() { echo "console_test: $*" >&2; exit 1; }
command -v node >/dev/null || die "node is not installed"
[[ -f $dist/index.html ]] || die "no built console in $dist (run: cd console && npm ci && npm run build)"
[[ -d $console/node_modules/playwright-core ]] || die "console/node_modules is missing (run: cd console && npm ci)"
chromium=${CHROMIUM:-/usr/bin/chromium}
[[ -x $chromium ]] || die "no chromium at $chromium (apt-get install -y chromium)"
for b in "$gnomond" "$gnomonctl" "$executor"; do [[ -x $b ]] || die "not an executable: $b"; done

tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# wait_for FILE REGEX SECONDS: prints the first match of REGEX in FILE.
wait_for() {
  local file=$1 re=$2 deadline=$((SECONDS + $3)) m
  while ((SECONDS < deadline)); do
    if m=$(grep -oE "$re" "$file" 2>/dev/null | head -1) && [[ -n $m ]]; then
      echo "$m"
      return 0
    fi
    sleep 0.1
  done
  echo "--- $file:" >&2
  cat "$file" >&2 || true
  die "timed out waiting for /$re/ in $file"
}

# --alarm-webhook-allow: alarm-channels.e2e.mjs's channel posts to a receiver on loopback.
"$gnomond" --store="sqlite:$tmp/g.db" --listen=127.0.0.1:0 --http-listen=127.0.0.1:0 \
  --console-dir="$dist" --admin-token-file="$tmp/admin.token" \
  --alarm-webhook-allow=127.0.0.1 >"$tmp/gnomond.out" 2>&1 &
pids+=($!)
grpc=$(wait_for "$tmp/gnomond.out" 'gnomond listening on [0-9.]+:[0-9]+' 30 | awk '{print $4}')
http=$(wait_for "$tmp/gnomond.out" 'gnomond HTTP API on http://[0-9.]+:[0-9]+' 30 | awk '{print $5}')
admin=$(cat "$tmp/admin.token")
ctl() { "$gnomonctl" --server "$grpc" --token "$admin" "$@"; }

# gnomonctl answers before the scheduler holds its partitions: retry the first call a while.
for _ in $(seq 100); do
  if ctl group create console-app -o json >"$tmp/group.json" 2>"$tmp/group.err"; then break; fi
  sleep 0.2
done
json() { node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(process.argv[2].split(".").reduce((o,k)=>o[k],j))' "$1" "$2"; }
group_id=$(json "$tmp/group.json" id) || { cat "$tmp/group.err" >&2; die "group create failed"; }
access=$(json "$tmp/group.json" access_token)

GNOMON_ACCESS_TOKEN=$access "$executor" --app=console-app --allow_scripts --registry="$grpc" >"$tmp/executor.out" 2>&1 &
pids+=($!)
wait_for "$tmp/executor.out" 'registered app' 30 >/dev/null

ctl token create viewer --role viewer --all-groups -o json >"$tmp/viewer.json" 2>/dev/null
viewer=$(json "$tmp/viewer.json" secret)

mkdir -p "$shots"
start=$SECONDS
# The workflow graph's layout on its own first (node:test, no browser).
node --test "$console/test/dag.test.mjs" >"$tmp/unit.out" 2>&1 || { cat "$tmp/unit.out" >&2; die "dag.test.mjs failed"; }
for spec in console workflows pause calendars alarm-channels pools; do
  GNOMON_URL=$http GNOMON_ADMIN_TOKEN=$admin GNOMON_VIEWER_TOKEN=$viewer GNOMON_GROUP_ID=$group_id \
    SCREENSHOT_DIR=$shots CHROMIUM=$chromium node "$console/e2e/$spec.e2e.mjs"
done
echo "console_test: passed in $((SECONDS - start)) s; screenshots in $shots"
