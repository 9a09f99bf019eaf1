#!/usr/bin/env bash
# Builds git copies of the Go standard library at about 1k, 10k and 100k
# files under DIR (default /work/data/ctxd-scale), for scripts/benchscale:
#   stdlib-1k:   $GOROOT/src/{net,encoding,crypto/tls,os,strings,bytes} (one commit)
#   stdlib-1.7k: $GOROOT/src/{net,crypto,os} (one commit; the concurrency load)
#   stdlib-10k:  $GOROOT/src (one commit)
#   stdlib-100k: $GOROOT copied 7 times (one commit)
#
#   scripts/make-stdlib-trees.sh [DIR]
set -euo pipefail
dir=${1:-/work/data/ctxd-scale}
goroot=$(go env GOROOT)
mkdir -p "$dir"
commit() {
  git -C "$1" init -q
  git -C "$1" add -A
  git -C "$1" -c user.name=bench -c user.email=bench@localhost commit -qm "stdlib copy"
}
if [ ! -d "$dir/stdlib-1k/.git" ]; then
  mkdir -p "$dir/stdlib-1k"
  for p in net encoding crypto/tls os strings bytes; do mkdir -p "$dir/stdlib-1k/$(dirname $p)"; cp -r "$goroot/src/$p" "$dir/stdlib-1k/$p"; done
  commit "$dir/stdlib-1k"
fi
if [ ! -d "$dir/stdlib-1.7k/.git" ]; then
  mkdir -p "$dir/stdlib-1.7k"
  for p in net crypto os; do cp -r "$goroot/src/$p" "$dir/stdlib-1.7k/$p"; done
  commit "$dir/stdlib-1.7k"
fi
if [ ! -d "$dir/stdlib-10k/.git" ]; then
  cp -r "$goroot/src" "$dir/stdlib-10k"
  commit "$dir/stdlib-10k"
fi
if [ ! -d "$dir/stdlib-100k/.git" ]; then
  mkdir -p "$dir/stdlib-100k"
  for i in 1 2 3 4 5 6 7; do cp -r "$goroot" "$dir/stdlib-100k/go$i"; done
  commit "$dir/stdlib-100k"
fi
for t in stdlib-1k stdlib-1.7k stdlib-10k stdlib-100k; do
  echo "$t files=$(git -C "$dir/$t" ls-files | wc -l)"
done
