#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-case table of docs/upstream-7.3.md from run_7.3.sh's results:
#
#   table.sh NETDEVSIM_RESULTS.tsv [REFNIC_RESULTS.tsv] > table.md
#
# One row per (file, case) seen in either file, in the order of the first:
# | file | case | netdevsim | refnic |, each result "pass", "fail: reason",
# "skip: reason" or "xfail: reason" (reasons cut to 110 characters, "|"
# escaped). Without a refnic file that column stays empty.
set -euo pipefail

nsim=${1:?usage: table.sh NETDEVSIM_RESULTS.tsv [REFNIC_RESULTS.tsv]}
refnic=${2:-/dev/null}

awk -F'\t' '
function cell(st, why) {
	if (st == "") return ""
	gsub(/\|/, "\\|", why)
	gsub(/`/, "'"'"'", why)
	if (length(why) > 110) why = substr(why, 1, 110) "..."
	return st (why != "" ? ": " why : "")
}
FNR == 1 { f++ }
{
	k = $1 SUBSEP $2
	if (!(k in seen)) { seen[k] = 1; order[n++] = k }
	if (f == 1) ns[k] = cell($3, $4); else rf[k] = cell($3, $4)
}
END {
	print "| file | case | netdevsim | refnic |"
	print "| --- | --- | --- | --- |"
	for (i = 0; i < n; i++) {
		split(order[i], p, SUBSEP)
		c = p[2]
		if (c == p[1]) c = "(whole file)"
		sub(/^[^.]*\./, "", c)
		printf "| %s | %s | %s | %s |\n", p[1], c, ns[order[i]], rf[order[i]]
	}
}' "$nsim" "$refnic"
