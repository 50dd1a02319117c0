# Keel's Tcl workload for the corpus (bench/corpus.py): deterministic (no clock,
# no rand without srand), a mix of the interpreter's paths: procs, expr, strings,
# lists, dicts, arrays, regexp/regsub, format/scan, lsort, namespaces, binary,
# string map, upvar, catch/error, coroutines. MODE (argv 0) = train or test:
# the same program with other data sizes and another mix.
set mode [lindex $argv 0]
if {$mode eq "train"} { set S 1 ; set T 2 } else { set S 2 ; set T 1 }
expr {srand(42)}

proc fib {n} { if {$n < 2} { return $n } ; expr {[fib [expr {$n - 1}]] + [fib [expr {$n - 2}]]} }

proc strings {n} {
    set parts {}
    for {set i 0} {$i < $n} {incr i} {
        lappend parts [format "%d:%s:%x" $i [string repeat x [expr {$i % 7}]] [expr {$i * 31}]]
    }
    set s [join $parts ,]
    set count [regexp -all {[0-9]+} $s]
    set u [string toupper $s]
    set m [string map {x y : -} $s]
    regsub -all {y+} $m {Y} m2
    return [expr {$count + [string length $u] + [string length $m2] + [string first Y $m2]}]
}

proc lists {n} {
    set l {}
    for {set i 0} {$i < $n} {incr i} { lappend l [expr {($i * 7919) % 1000}] }
    set s [lsort -integer -decreasing $l]
    set u [lsort -unique $l]
    set r [lsearch -all -exact $l 500]
    set words [lsort -dictionary [lmap x $l {format w%03d $x}]]
    return [expr {[lindex $s 0] + [llength $u] + [llength $r] + [llength $words]}]
}

proc dicts {n} {
    set d [dict create]
    for {set i 0} {$i < $n} {incr i} { dict incr d k[expr {$i % 97}] }
    array set a {}
    foreach {k v} $d { set a($k) [expr {$v * 2}] }
    set sum 0
    foreach k [lsort [array names a]] { incr sum $a($k) }
    dict for {k v} $d { incr sum $v }
    return $sum
}

namespace eval geo {
    proc area {shape args} {
        switch -- $shape {
            circle { return [expr {3.14159 * [lindex $args 0] ** 2}] }
            rect   { return [expr {[lindex $args 0] * [lindex $args 1]}] }
            default { error "unknown shape $shape" }
        }
    }
}

proc shapes {n} {
    set total 0.0
    for {set i 0} {$i < $n} {incr i} {
        set total [expr {$total + [geo::area circle [expr {$i % 5}]] + [geo::area rect $i 2]}]
        if {[catch {geo::area hexagon 1} msg]} { set total [expr {$total + [string length $msg]}] }
    }
    return [expr {int($total)}]
}

proc bump {varName} { upvar 1 $varName v ; incr v }

proc gen {n} { yield ; for {set i 0} {$i < $n} {incr i} { yield $i } ; return -1 }

proc misc {n} {
    set c 0
    for {set i 0} {$i < $n} {incr i} { bump c }
    coroutine g gen $n
    set s 0
    for {set i 0} {$i < $n} {incr i} { incr s [g] }
    set b [binary format I* [lrange [lsort -integer [split [string repeat 1 64] ""]] 0 15]]
    binary scan $b I* ints
    scan "12 ab 3.5" "%d %s %f" x y z
    return [expr {$c + $s + [llength $ints] + $x + int($z)}]
}

set total 0
for {set r 0} {$r < $T} {incr r} {
    incr total [fib [expr {12 + $S}]]
    incr total [strings [expr {300 * $S}]]
    incr total [lists [expr {600 * $S}]]
    incr total [dicts [expr {1200 / $S}]]
    incr total [shapes [expr {120 * $S}]]
    incr total [misc [expr {800 * $S}]]
}
puts $total
