#!/usr/bin/env bash
# Installs everything weft needs on a Debian machine, builds weft, and runs
# the main job (the M4 replicated-register check, both variants).
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi

# System packages (Debian). Add to this list, never install by hand.
apt_packages=(
  gcc libc6-dev pkg-config libseccomp-dev      # building targets and the supervisor (cgo)
  python3 python3-jupyter-client python3-nbclient python3-nbformat python3-ipykernel
  jupyter-nbconvert jupyter-notebook           # running and opening the notebooks
  python3-jupyter-kernel-test                  # the kernel conformance suite (kernel/conformance_test.go)
  chromium                                     # report rendering test (headless)
  slurm-wlm munge                              # the Slurm campaign test (scripts/slurm-test-setup.sh)
  python3-yaml                                 # parsing the Kubernetes manifest in a test
  redis-server                                 # targets/redis (TestRedisReplication)
  busybox socat                                # real programs under weft (targets/httpd, targets/socat)
  nats-server etcd-server                      # real Go servers over netlink (targets/nats, issue 37)
  memcached redis-sentinel nginx-light tarantool rabbitmq-server zookeeper # issue 37's ladder (targets/real, scripts/ladder.sh)
  amqp-tools                                   # targets/real/rabbitmq: the AMQP client node (amqp-publish, amqp-consume)
  postgresql-15 postgresql-client-15           # targets/real/postgres (SysV IPC, a node as user postgres)
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm (the independent Arrow reader, echarts): this machine kind
# ships them from NodeSource, which conflicts with Debian's npm package; take
# Debian's only when there are none.
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  missing+=(nodejs npm)
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# JavaScript packages from the npm registry, never committed: build/js.
js_dir=build/js
if [[ ! -f $js_dir/.installed-v1 ]] || [[ scripts/package.json -nt $js_dir/.installed-v1 ]]; then
  mkdir -p "$js_dir"
  cp scripts/package.json "$js_dir/package.json"
  (cd "$js_dir" && npm install --no-audit --no-fund --silent)
  touch "$js_dir/.installed-v1"
fi

# Go toolchain check and build.
if ! command -v go >/dev/null; then
  echo "setup: Go 1.26 is required (https://go.dev/dl); put it on PATH and rerun" >&2
  exit 2
fi
mkdir -p bin
cp "$js_dir/node_modules/echarts/dist/echarts.min.js" analysis/charts/embedded/ # built into weft: report/serve from any directory
go build -o bin/weft ./cmd/weft
echo "setup: built bin/weft"
# The Go target's binary (its model names it; weft builds only C sources).
go build -o targets/gothreads/gothreads ./targets/gothreads
# The Jupyter kernel for the notebooks (kernelspec in the user's Jupyter dir).
bin/weft kernel install --user >/dev/null && echo "setup: installed the Jupyter kernel 'Go (weft)'"

# The main job.
if [[ -f targets/repl/repl.model ]]; then
  echo "== weft check targets/repl/repl.model"
  bin/weft check targets/repl/repl.model
  echo "== weft check --variant bug targets/repl/repl.model (expected to find the violation, exit 1)"
  rc=0; bin/weft check --variant bug targets/repl/repl.model --save build/repl-bug.weftpath || rc=$?
  if [[ $rc -ne 1 ]]; then echo "setup: expected exit 1 from the bug variant, got $rc" >&2; exit 1; fi
fi
