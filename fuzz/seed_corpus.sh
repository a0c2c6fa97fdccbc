#!/bin/sh
# Fills fuzz/corpus/<target>/ (git-ignored) with seeds: every *.cwl of ../shared/corpus/ (when
# present), the repository's examples/ and test fixtures, and the saved regressions.
#   sh fuzz/seed_corpus.sh && cd fuzz && cargo +nightly fuzz run diagnostics -- -max_total_time=300
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
shared="$root/../shared/corpus"
for target in diagnostics positions edits; do
  dir="$here/corpus/$target"
  mkdir -p "$dir"
  for src in "$shared" "$root/examples" "$root/tests/fixtures"; do
    [ -d "$src" ] || { echo "seed_corpus: $src absent, skipped" >&2; continue; }
    # Name each seed by its content hash so that reruns do not duplicate.
    find "$src" -type f -name '*.cwl' | while read -r f; do
      cp "$f" "$dir/$(sha1sum < "$f" | cut -c1-16)"
    done
  done
  cp "$here"/regressions/* "$dir"/ 2>/dev/null || true
  n=$(ls "$dir" | wc -l)
  echo "seed_corpus: $n seeds in $dir"
done
