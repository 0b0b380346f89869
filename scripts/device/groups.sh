#!/usr/bin/env bash
# Runs run-all.sh sections in groups, each under its own time limit, so that
# one slow group cannot take the others' results with it; then gathers every
# log into $OUT/all.txt and the CSV files into $OUT (the device tool returns
# at most 8 files). Usage: bash .gpu/groups.sh "<sections>:<seconds>" ...
#   e.g. bash .gpu/groups.sh "plugin:60" "benchprod:300"
cd "$(dirname "$0")"
OUT0=${OUT:-/tmp/out}
for g in "$@"; do
  sections=${g%%:*}
  limit=${g##*:}
  dir="$OUT0/$(echo "$sections" | tr ' ' '_')"
  OUT=$dir timeout "$limit" bash ./run-all.sh $sections >/dev/null 2>&1
  echo "== group '$sections' (limit ${limit}s) exit $?"
  cat "$dir/summary.txt" 2>/dev/null
done | tee "$OUT0/summary.txt"
{
  for f in $(find "$OUT0" -mindepth 2 -type f \( -name '*.log' -o -name '*.txt' \) | sort); do
    echo "=================== ${f#$OUT0/}"
    cat "$f"
  done
} > "$OUT0/all.txt"
for f in $(find "$OUT0" -mindepth 2 -name '*.csv'); do cp "$f" "$OUT0/"; done
find "$OUT0" -mindepth 1 -type d -exec rm -rf {} +
