#!/usr/bin/env bash
# The speed-and-scale numbers of BENCHMARKS.md ("Speed and scale"), in one
# run: git copies of the Go standard library at ~1k, ~10k and ~100k files
# (scripts/make-stdlib-trees.sh), each measured with scripts/benchscale:
#   - a daemon started with no persisted index: first request, warm p50/p95
#     over 40 varied ctx/buildPrompt requests, peak RSS; then cold
#     `ctxd prompt` runs (median of 5) with the index the daemon persisted;
#   - a daemon started again with the persisted index present;
# then 8 requests in flight on the ~1.7k-file tree, and, when REPOMIX names
# a repomix binary (npm i repomix@1.14 outside the repo), ctxd pack against
# repomix on the 1.7k and 10k trees (cold with and without persisted
# token counts, and warm ctx/pack to a file). PACK_ONLY=1 runs the pack
# part alone.
#
# CTXD_BIN measures a given binary instead of building this tree's (the
# BEFORE numbers were taken that way, with the binary of commit db19be5).
#
#   REPOMIX=/work/data/repomix/node_modules/.bin/repomix scripts/bench-scale.sh [DIR]
set -euo pipefail
dir=${1:-/work/data/ctxd-scale}
scripts/make-stdlib-trees.sh "$dir" >/dev/null
tmp=$(mktemp -d)
if [ -n "${CTXD_BIN:-}" ]; then cp "$CTXD_BIN" "$tmp/ctxd"; else go build -o "$tmp/ctxd" ./cmd/ctxd; fi
go build -o "$tmp/benchscale" ./scripts/benchscale
echo "binary_bytes=$(stat -c %s "$tmp/ctxd")"
if [ -z "${PACK_ONLY:-}" ]; then
for t in 1k 10k 100k; do
  rm -rf "$dir/stdlib-$t/.ctxd"
  "$tmp/benchscale" -bin "$tmp/ctxd" -root "$dir/stdlib-$t" -n 40 -cold 5
  "$tmp/benchscale" -bin "$tmp/ctxd" -root "$dir/stdlib-$t" -n 40 -cold 0
done
"$tmp/benchscale" -bin "$tmp/ctxd" -root "$dir/stdlib-1.7k" -clients 8 -n 400 -cold 0
fi
if [ -n "${REPOMIX:-}" ]; then
  for t in 1.7k 10k; do
    d="$dir/stdlib-$t"
    # A fresh process: first with no persisted token counts, then (3
    # runs) with the counts the first run persisted.
    for i in 1 2 3; do
      rm -f "$d/.ctxd/index/pack-counts.bin"
      s=$(date +%s.%N); "$tmp/ctxd" pack --root "$d" --format xml --output "$tmp/ctxd-$t.xml" 2>/dev/null; e=$(date +%s.%N)
      echo "ctxd_pack_cold_no_counts tree=$t s=$(echo "$e - $s" | bc)"
    done
    for i in 1 2 3; do
      s=$(date +%s.%N); "$tmp/ctxd" pack --root "$d" --format xml --output "$tmp/ctxd-$t.xml" 2>/dev/null; e=$(date +%s.%N)
      echo "ctxd_pack_cold_persisted_counts tree=$t s=$(echo "$e - $s" | bc)"
    done
    for i in 1 2; do
      s=$(date +%s.%N); (cd "$d" && "$REPOMIX" --style xml --token-count-tree -o "$tmp/repomix-$t.xml" > "$tmp/repomix-$t.out" 2>&1); e=$(date +%s.%N)
      echo "repomix_cold tree=$t s=$(echo "$e - $s" | bc) $(grep -h 'Total Files\|Total Tokens' "$tmp/repomix-$t.out" | tr -s ' ' | tr '\n' ' ')"
    done
    "$tmp/benchscale" -bin "$tmp/ctxd" -root "$d" -method ctx/pack -n 10 -cold 0
  done
fi
