# Sourced by the scripts in this folder: their log and error lines, prefixed with the
# script's name (PROG, set before sourcing). DIE_START and DIE_END frame the error
# line (the demo colours it on a terminal); both default to nothing.

# log MESSAGE...: one line on stderr.
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }

# die FAULT FIX...: print which fault happened and how to fix it, then exit 1.
die() {
	printf '%s%s: error: %s%s\n' "${DIE_START-}" "$PROG" "$1" "${DIE_END-}" >&2
	shift
	local line
	for line in "$@"; do printf '  fix: %s\n' "$line" >&2; done
	exit 1
}
