#!/usr/bin/env bash
# Measures `ctxd prompt` as a user runs it: a fresh process each time (no
# daemon cache; the OS page cache is warm after the first run), on a tree
# given as $1 (default: the Go standard library source). Prints the median
# wall time, CPU time (user+sys: steadier than wall on a shared machine)
# and peak RSS of N runs (default 7).
#
#   scripts/bench-cli.sh [ROOT] [N] [REQUEST]
set -euo pipefail
root=${1:-$(go env GOROOT)/src}
n=${2:-7}
request=${3:-how does the http server handle keep-alive connections}
bin=$(mktemp -d)/ctxd
go build -o "$bin" ./cmd/ctxd
export CTXD_CONFIG="$(dirname "$bin")/no-user-config.toml"   # defaults only, whatever the user file says
walls=() cpus=() rss=()
for _ in $(seq "$n"); do
  read -r wall user sys kib < <( { /usr/bin/time -f '%e %U %S %M' "$bin" prompt --root "$root" "$request" >/dev/null; } 2>&1 | tail -1)
  walls+=("$wall") rss+=("$kib") cpus+=("$(echo "$user + $sys" | bc)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "root=$root runs=$n"
echo "wall_s_median=$(median "${walls[@]}") wall_s_all=${walls[*]}"
echo "cpu_s_median=$(median "${cpus[@]}")"
echo "peak_rss_kib_median=$(median "${rss[@]}")"
