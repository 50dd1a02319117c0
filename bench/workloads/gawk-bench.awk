# Keel's gawk workload for the corpus (bench/corpus.py): reads a text file and
# exercises the interpreter's main paths: fields, regular expressions, gsub,
# split, associative arrays, sprintf/printf, user functions, recursion, sorting
# (asort, asorti, PROCINFO["sorted_in"]), substr/index/toupper, getline-free.
# Deterministic: no time, no rand without a seed (srand(42)), sorted iteration.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
function rot(s,   i, out, c, p) {
    out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        p = index("abcdefghijklmnopqrstuvwxyz", c)
        out = out (p ? substr("nopqrstuvwxyzabcdefghijklm", p, 1) : c)
    }
    return out
}
BEGIN { srand(42); PROCINFO["sorted_in"] = "@ind_str_asc" }
{
    lines++
    chars += length($0)
    for (i = 1; i <= NF; i++) {
        w = tolower($i)
        gsub(/[^a-z0-9]/, "", w)
        if (w != "") { freq[w]++; len[length(w)]++ }
    }
    if (match($0, /([0-9]{4})-([0-9]{2})-([0-9]{2})/, m)) dates[m[1] "/" m[2]]++
    if ($0 ~ /^[ \t]*\*/) bullets++
    n = split($0, parts, /[,;:]/)
    pieces += n
    s = $0
    subs += gsub(/the|and|of/, "&&", s)
    if (NR % 7 == 0) rotated = rotated substr(rot(tolower($0)), 1, 8)
    if (NR % 13 == 0) { key = sprintf("%05d:%s", NR % 1000, toupper(substr($1, 1, 6))); keys[key] = NR }
    x = x + int(rand() * 100)
}
END {
    printf("lines %d chars %d bullets %d pieces %d subs %d x %d\n", lines, chars, bullets, pieces, subs, x)
    nw = asorti(freq, words)
    for (i = 1; i <= nw && i <= 20; i++) printf("%-20s %6d\n", words[i], freq[words[i]])
    for (l in len) printf("len %s %d\n", l, len[l])
    k = 0
    for (d in dates) if (k++ < 30) printf("date %s %d\n", d, dates[d])
    nv = 0
    for (w in freq) counts[++nv] = freq[w] * 1000 + length(w)
    asort(counts)
    printf("median %d max %d\n", counts[int(nv / 2) + 1], counts[nv])
    for (kk in keys) out = out kk ","
    printf("keys %d %s\n", length(keys), substr(out, 1, 60))
    printf("rot %s fib %d\n", substr(rotated, 1, 40), fib(18))
}
