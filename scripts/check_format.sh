#!/usr/bin/env bash
# Lists the C/C++ files under src include tools tests examples that clang-format would change
# (the style is .clang-format at the top of the tree) and exits 1 if there are any, printing the
# command that formats them; exits 0 when every file is formatted, 2 when clang-format is missing.
#
#   bash scripts/check_format.sh          check
#   bash scripts/check_format.sh --fix    format the files it would list, in place
#
# clang-format's output differs between major versions, so the check pins one: Debian 12's
# clang-format-14 (scripts/setup.sh installs it). PAPCOLL_CLANG_FORMAT=PATH uses another binary.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
case "${1:-}" in
  --fix) fix=1 ;;
  "") ;;
  *) echo "usage: bash scripts/check_format.sh [--fix]" >&2; exit 2 ;;
esac

cf=${PAPCOLL_CLANG_FORMAT:-}
if [[ -z "$cf" ]]; then
  if command -v clang-format-14 >/dev/null; then
    cf=clang-format-14
  elif command -v clang-format >/dev/null &&
       clang-format --version | grep -q 'clang-format version 14\.'; then
    cf=clang-format
  else
    echo "check_format: clang-format 14 not found: install clang-format-14 (bash scripts/setup.sh)" \
         "or set PAPCOLL_CLANG_FORMAT" >&2
    exit 2
  fi
fi

# Tracked files and new ones not ignored (a build tree's generated sources are ignored).
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- src include tools tests \
                       examples | grep -E '\.(c|cc|cpp|h|hpp)$' | sort -u)

unformatted=()
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue  # deleted in the work tree, not yet in the index
  if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
    unformatted+=("$f")
  fi
done

if ((${#unformatted[@]} == 0)); then
  echo "check_format: ${#files[@]} files formatted ($cf)"
  exit 0
fi
if ((fix)); then
  "$cf" --style=file -i "${unformatted[@]}"
  echo "check_format: formatted ${#unformatted[@]} files ($cf)"
  exit 0
fi
echo "check_format: ${#unformatted[@]} of ${#files[@]} C/C++ files are not formatted ($cf, .clang-format):" >&2
printf '  %s\n' "${unformatted[@]}" >&2
echo "Fix them with:" >&2
echo "  bash scripts/check_format.sh --fix" >&2
echo "or:" >&2
echo "  $cf -i ${unformatted[*]}" >&2
exit 1
