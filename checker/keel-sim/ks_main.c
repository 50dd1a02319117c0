/*===- ks_main.c - keel-sim: one execution, many layouts and geometries ---===*
 *
 * A Valgrind tool (started as `valgrind --tool=keel-sim`) that simulates the
 * same I1/D1/LL caches and branch predictors as cachegrind (--cache-sim=yes
 * --branch-sim=yes), so that for one geometry and the program's own addresses
 * the totals equal cachegrind's, and does so for several cache geometries and
 * several ADDRESS MAPS in the same execution.  A map describes a variant of
 * the main executable whose instruction stream is the same but whose bytes
 * live elsewhere (a code or data pad, a function order of the same objects):
 * each range [lo,hi) of the base binary's file addresses is moved by an
 * offset.  Instruction fetches, branch addresses and data addresses that fall
 * in a range are moved before they reach that variant's simulated caches.
 *
 * The event model follows cachegrind's (docs/keel-sim.md says where):
 *  - one instruction fetch per instruction, of the instruction's length
 *    (a fetch straddling two lines is one access: a miss if either misses);
 *  - one data access per load/store of its IR type's size; a store at the
 *    same address and size right after a load of the same instruction is a
 *    modify and counts once, as a read; dirty helpers and CAS are capped at
 *    the smallest line size;
 *  - LRU sets, the whole block number as tag, tags start at zero;
 *  - LL is shared by instruction and data misses of level 1;
 *  - branch predictors: a 2-bit counter table indexed by 7 history bits and
 *    7 address bits for conditional branches, a 512-entry last-target table
 *    for indirect ones (not returns).
 *
 * Output (--keel-sim-out-file, default keel-sim.out.<pid>): text, one line per
 * (variant, geometry):  result <variant> <geometry> <13 counts> in the order
 * of the `events:` line, which uses cachegrind's event names; with
 * --frontend=NAME, 11 more (the front-end model, ks_frontend.c).
 *===----------------------------------------------------------------------===*/

#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "ks_frontend.h"

#define KS_MAX_GEOMS 16 /* layout-sweep: MaxSweepGeometries (SimBackend.h) */
#define KS_MAX_VARIANTS 1024

/*------------------------------------------------------------*/
/*--- Options                                              ---*/
/*------------------------------------------------------------*/

typedef struct {
   Int size, assoc, line;
} Level;

static Level clo_I1[KS_MAX_GEOMS], clo_D1[KS_MAX_GEOMS], clo_LL[KS_MAX_GEOMS];
static Int n_clo_I1, n_clo_D1, n_clo_LL;
static const HChar *clo_out_file = "keel-sim.out.%p";
static const HChar *clo_map_file = NULL;
static Bool clo_fn_ir = False;

static Bool parse_level(const HChar *opt, const HChar *val, Level *L)
{
   HChar *end;
   Long s = VG_(strtoll10)(val, &end);
   if (*end != ',') goto bad;
   Long a = VG_(strtoll10)(end + 1, &end);
   if (*end != ',') goto bad;
   Long l = VG_(strtoll10)(end + 1, &end);
   if (*end != '\0') goto bad;
   if (s <= 0 || a <= 0 || l <= 0 || s > 0x40000000 || a > 1024 || l > 4096)
      goto bad;
   if (VG_(log2)((UInt)l) == -1 || l < 16) {
      VG_(fmsg_bad_option)(opt, "the line size must be a power of two >= 16\n");
   }
   if (s % (l * a) != 0 || VG_(log2)((UInt)(s / (l * a))) == -1 || s <= l) {
      VG_(fmsg_bad_option)(opt, "size / (assoc * line) must be a power of two\n");
   }
   L->size = (Int)s; L->assoc = (Int)a; L->line = (Int)l;
   return True;
 bad:
   VG_(fmsg_bad_option)(opt, "expected SIZE,ASSOC,LINE in bytes\n");
   return False;
}

static Bool ks_process_cmd_line_option(const HChar *arg)
{
   const HChar *v;
   if VG_STR_CLO(arg, "--I1", v) {
      if (n_clo_I1 == KS_MAX_GEOMS) VG_(fmsg_bad_option)(arg, "too many --I1\n");
      return parse_level(arg, v, &clo_I1[n_clo_I1++]);
   } else if VG_STR_CLO(arg, "--D1", v) {
      if (n_clo_D1 == KS_MAX_GEOMS) VG_(fmsg_bad_option)(arg, "too many --D1\n");
      return parse_level(arg, v, &clo_D1[n_clo_D1++]);
   } else if VG_STR_CLO(arg, "--LL", v) {
      if (n_clo_LL == KS_MAX_GEOMS) VG_(fmsg_bad_option)(arg, "too many --LL\n");
      return parse_level(arg, v, &clo_LL[n_clo_LL++]);
   } else if VG_STR_CLO(arg, "--keel-sim-out-file", clo_out_file) {
   } else if VG_STR_CLO(arg, "--keel-sim-map-file", clo_map_file) {
   } else if VG_BOOL_CLO(arg, "--keel-sim-fn-ir", clo_fn_ir) {
   } else
      return ks_fe_option(arg);
   return True;
}

static void ks_print_usage(void)
{
   VG_(printf)(
"    --I1=<size>,<assoc>,<line_size>  I1 cache (repeat: one geometry each)\n"
"    --D1=<size>,<assoc>,<line_size>  D1 cache (once, or once per geometry)\n"
"    --LL=<size>,<assoc>,<line_size>  LL cache (once, or once per geometry)\n"
"    --keel-sim-out-file=<file>       results [keel-sim.out.%%p]\n"
"    --keel-sim-map-file=<file>       address maps of the variants to simulate\n"
"    --keel-sim-fn-ir=no|yes          executed instructions per function [no]\n");
   ks_fe_usage();
}

static void ks_print_debug_usage(void)
{
   VG_(printf)("    (none)\n");
}

/*------------------------------------------------------------*/
/*--- Caches                                               ---*/
/*------------------------------------------------------------*/

typedef struct {
   UWord *tags;      /* sets * assoc block numbers, most recent first */
   UWord sets_mask;
   Int line_bits;
   Int assoc;
} Cache;

/* Zeroed memory that starts on a host cache line (64 bytes): a set of 8
   tags is then one host line, not two.  Never freed. */
static void *calloc_lines(const HChar *cc, SizeT n, SizeT size)
{
   UChar *p = VG_(calloc)(cc, n * size + 64, 1);
   return p + ((64 - ((Addr)p & 63)) & 63);
}

static void cache_init(Cache *c, Level L)
{
   UWord sets = (UWord)(L.size / L.line / L.assoc);
   c->sets_mask = sets - 1;
   c->line_bits = VG_(log2)((UInt)L.line);
   c->assoc = L.assoc;
   /* Block 0 counts as present at start, as in cachegrind. */
   c->tags = calloc_lines("ks.tags", sets * (UWord)L.assoc, sizeof(UWord));
}

/* Look up one block in its set; move it to the front (LRU order).  Returns
   True for a miss, after which the block is in front and the least recently
   used one is gone. */
static inline Bool block_misses(Cache *c, UWord block)
{
   UWord *set = c->tags + (block & c->sets_mask) * (UWord)c->assoc;
   if (set[0] == block)
      return False;
   Int n = c->assoc, i;
   for (i = 1; i < n; i++)
      if (set[i] == block)
         break;
   Bool miss = i == n;
   if (miss)
      i = n - 1;
   for (; i > 0; i--)
      set[i] = set[i - 1];
   set[0] = block;
   return miss;
}

/* An access of `size` bytes at `a` (size <= line): one access even when it
   spans two lines, a miss when either line misses; both lines are touched. */
static inline Bool access_misses(Cache *c, Addr a, UWord size)
{
   UWord b1 = a >> c->line_bits;
   UWord b2 = (a + size - 1) >> c->line_bits;
   if (b1 == b2)
      return block_misses(c, b1);
   Bool m1 = block_misses(c, b1);
   Bool m2 = block_misses(c, b2);
   return m1 || m2;
}

/*------------------------------------------------------------*/
/*--- Variants, geometries and counts                      ---*/
/*------------------------------------------------------------*/

typedef struct {
   Addr lo, hi; /* file addresses of the base binary, then run addresses */
   Long off;
} Range;

typedef struct {
   HChar *name;
   Range *ranges; /* sorted by lo, disjoint */
   Int n_ranges;
   /* branch predictors */
   UWord history;
   UChar counters[1 << 14];
   Addr btac[1 << 9];
   ULong Bcm, Bim;
   /* Accesses inside the executable that no range covers: the map does not
      describe this variant, and its counts must not be used. */
   ULong unmapped;
} Variant;

typedef struct {
   Cache I1, D1, LL;
   ULong I1mr, ILmr, D1mr, DLmr, D1mw, DLmw;
} Sim;

static Int n_geoms;
static Level g_I1[KS_MAX_GEOMS], g_D1[KS_MAX_GEOMS], g_LL[KS_MAX_GEOMS];
static UWord g_min_line[KS_MAX_GEOMS];
static UWord min_line_all;

static Variant *variants;
static Int n_variants;
static Sim *sims; /* [variant * n_geoms + geometry] */

static ULong n_Ir, n_Dr, n_Dw, n_Bc, n_Bi;
/* log2 of the smallest D1 and I1 line sizes of all geometries. */
static Int d_bits_min = 63, i_bits_min = 63;

/* Bias of the main executable once known, and the hull of every mapped
   range at run addresses, to skip the lookup for other addresses. */
static Bool maps_resolved;
static Addr hull_lo = ~(Addr)0, hull_hi;
/* The executable's own extent (`exe LO HI`, file addresses until resolved):
   every access inside it must fall in one of a variant's ranges. */
static Addr exe_lo, exe_hi;
/* The hull of the ranges some variant moves (offset != 0). */
static Addr moved_lo = ~(Addr)0, moved_hi;

/* The range of `v` holding `a` (NULL: none, the address does not move). */
static inline const Range *range_of(const Variant *v, Addr a)
{
   Int lo = 0, hi = v->n_ranges;
   while (lo < hi) {
      Int mid = (lo + hi) / 2;
      const Range *r = &v->ranges[mid];
      if (a < r->lo)
         hi = mid;
      else if (a >= r->hi)
         lo = mid + 1;
      else
         return r;
   }
   return NULL;
}

static inline Addr map_addr(Variant *v, Addr a)
{
   if (a < hull_lo || a >= hull_hi || v->n_ranges == 0)
      return a;
   const Range *r = range_of(v, a);
   if (r)
      return (Addr)((Long)a + r->off);
   if (a >= exe_lo && a < exe_hi)
      v->unmapped++;
   return a;
}

/* map_addr for variant V without counting unmapped accesses (the front-end
   model's data side; ks_frontend.h). */
static Addr map_addr_quiet(Int v, Addr a)
{
   const Range *r = range_of(&variants[v], a);
   return r ? (Addr)((Long)a + r->off) : a;
}

/*------------------------------------------------------------*/
/*--- The map file                                         ---*/
/*------------------------------------------------------------*/

/* Text, one directive per line, '#' comments:
     exe LO HI               the base executable's loaded extent
     variant NAME
     range LO HI OFFSET      (LO, HI: hex with 0x or decimal; OFFSET signed)
   Addresses are file addresses of the main executable (the base binary);
   ranges belong to the last `variant`.  A range may lie outside the
   executable (its heap, which starts at the page after its last byte).  The base (identity) variant is always
   simulated first, as variant 0. */

static HChar *read_whole_file(const HChar *path)
{
   SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(sr))
      return NULL;
   Int fd = (Int)sr_Res(sr);
   SizeT cap = 65536, len = 0;
   HChar *buf = VG_(malloc)("ks.map", cap + 1);
   for (;;) {
      if (len == cap) {
         cap *= 2;
         buf = VG_(realloc)("ks.map", buf, cap + 1);
      }
      Int n = VG_(read)(fd, buf + len, (Int)(cap - len));
      if (n < 0) {
         VG_(close)(fd);
         VG_(free)(buf);
         return NULL;
      }
      if (n == 0)
         break;
      len += (SizeT)n;
   }
   VG_(close)(fd);
   buf[len] = '\0';
   return buf;
}

static Bool parse_num(const HChar **p, Long *out)
{
   while (**p == ' ' || **p == '\t') (*p)++;
   Bool neg = False;
   if (**p == '-') { neg = True; (*p)++; }
   HChar *end;
   Long v;
   if ((*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
      v = VG_(strtoll16)(*p + 2, &end);
   else
      v = VG_(strtoll10)(*p, &end);
   if (end == *p)
      return False;
   *p = end;
   *out = neg ? -v : v;
   return True;
}

static Int cmp_range(const void *a, const void *b)
{
   const Range *x = a, *y = b;
   return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

__attribute__((noreturn)) static void map_error(Int line, const HChar *what)
{
   VG_(fmsg)("keel-sim: %s:%d: %s\n", clo_map_file, line, what);
   VG_(exit)(2);
}

static void add_variant(const HChar *name, SizeT len)
{
   if (n_variants == KS_MAX_VARIANTS) {
      VG_(fmsg)("keel-sim: more than %d variants\n", KS_MAX_VARIANTS);
      VG_(exit)(2);
   }
   Variant *v = &variants[n_variants++];
   v->name = VG_(malloc)("ks.name", len + 1);
   VG_(memcpy)(v->name, name, len);
   v->name[len] = '\0';
}

static void read_map_file(void)
{
   HChar *text = read_whole_file(clo_map_file);
   if (!text) {
      VG_(fmsg)("keel-sim: cannot read --keel-sim-map-file=%s\n", clo_map_file);
      VG_(exit)(2);
   }
   Int cap = 0, line_no = 0;
   const HChar *p = text;
   while (*p) {
      const HChar *eol = p;
      while (*eol && *eol != '\n') eol++;
      line_no++;
      while (p < eol && (*p == ' ' || *p == '\t')) p++;
      if (p == eol || *p == '#') {
      } else if (eol - p > 8 && VG_(strncmp)(p, "variant ", 8) == 0) {
         const HChar *n = p + 8;
         while (n < eol && *n == ' ') n++;
         const HChar *e = eol;
         while (e > n && (e[-1] == ' ' || e[-1] == '\r')) e--;
         if (e == n) map_error(line_no, "a variant needs a name");
         add_variant(n, (SizeT)(e - n));
         cap = 0;
      } else if (eol - p > 4 && VG_(strncmp)(p, "exe ", 4) == 0) {
         const HChar *q = p + 4;
         Long lo = 0, hi = 0;
         if (!parse_num(&q, &lo) || !parse_num(&q, &hi) || lo < 0 || hi <= lo)
            map_error(line_no, "expected: exe LO HI, LO < HI");
         exe_lo = (Addr)lo;
         exe_hi = (Addr)hi;
      } else if (eol - p > 6 && VG_(strncmp)(p, "range ", 6) == 0) {
         if (n_variants < 2) map_error(line_no, "'range' before any 'variant'");
         Variant *v = &variants[n_variants - 1];
         const HChar *q = p + 6;
         Long lo = 0, hi = 0, off = 0;
         if (!parse_num(&q, &lo) || !parse_num(&q, &hi) || !parse_num(&q, &off)
             || lo < 0 || hi <= lo)
            map_error(line_no, "expected: range LO HI OFFSET, LO < HI");
         if (v->n_ranges == cap) {
            cap = cap ? 2 * cap : 16;
            v->ranges = VG_(realloc)("ks.ranges", v->ranges, cap * sizeof(Range));
         }
         v->ranges[v->n_ranges].lo = (Addr)lo;
         v->ranges[v->n_ranges].hi = (Addr)hi;
         v->ranges[v->n_ranges].off = off;
         v->n_ranges++;
      } else {
         map_error(line_no, "expected 'variant NAME' or 'range LO HI OFFSET'");
      }
      p = *eol ? eol + 1 : eol;
   }
   VG_(free)(text);
   for (Int i = 1; i < n_variants; i++) {
      Variant *v = &variants[i];
      VG_(ssort)(v->ranges, v->n_ranges, sizeof(Range), cmp_range);
      for (Int r = 1; r < v->n_ranges; r++)
         if (v->ranges[r].lo < v->ranges[r - 1].hi)
            map_error(0, "ranges of one variant overlap");
   }
}

/* The ranges are file addresses; add the main executable's load bias (a PIE
   runs somewhere else than its file says).  Done once, before the first
   client instruction runs: the executable's debug info is read at start. */
static void predictor_classes(void);
static void d1_sharing(void);
static void lru_setup(void);
static void data_path_setup(void);
static Bool *d1_lru_pair; /* [variant * n_geoms + geometry]: shared-time D1 */
/* Every (variant, geometry) a member of a shared-time D1 class, none on
   its own or shared with the base's D1 (so none ever will be): a data
   access is the classes' part alone. */
static Bool all_d1_lru;


static void resolve_maps(void)
{
   maps_resolved = True;
   Bool any = False;
   for (Int i = 1; i < n_variants; i++)
      if (variants[i].n_ranges) any = True;
   if (!any) {
      predictor_classes();
      lru_setup();
      d1_sharing();
      data_path_setup();
      return;
   }
   const HChar *exe = VG_(args_the_exename);
   const DebugInfo *di, *found = NULL;
   for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
      const HChar *f = VG_(DebugInfo_get_filename)(di);
      if (!f || !exe)
         continue;
      if (VG_(strcmp)(f, exe) == 0) {
         found = di;
         break;
      }
      /* A relative name: the debug info has the absolute one. */
      const HChar *rel = exe;
      while (rel[0] == '.' && rel[1] == '/') rel += 2;
      SizeT nf = VG_(strlen)(f), nr = VG_(strlen)(rel);
      if (exe[0] != '/' && nf > nr && f[nf - nr - 1] == '/' &&
          VG_(strcmp)(f + nf - nr, rel) == 0 && !found)
         found = di;
   }
   /* Started by another name (/dev/fd/N): the same file. */
   struct vg_stat se, sd;
   if (!found && exe && !sr_isError(VG_(stat)(exe, &se)))
      for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
         const HChar *f = VG_(DebugInfo_get_filename)(di);
         if (f && !sr_isError(VG_(stat)(f, &sd)) && sd.dev == se.dev &&
             sd.ino == se.ino) {
            found = di;
            break;
         }
      }
   if (!found) {
      VG_(fmsg)("keel-sim: the address maps need the main executable's load "
                "address, but no debug info names '%s'\n",
                exe ? exe : "(none)");
      VG_(exit)(3);
   }
   PtrdiffT bias = VG_(DebugInfo_get_text_bias)(found);
   if (exe_hi) {
      exe_lo += bias;
      exe_hi += bias;
      if (exe_lo < hull_lo) hull_lo = exe_lo;
      if (exe_hi > hull_hi) hull_hi = exe_hi;
   }
   for (Int i = 1; i < n_variants; i++) {
      Variant *v = &variants[i];
      for (Int r = 0; r < v->n_ranges; r++) {
         v->ranges[r].lo += bias;
         v->ranges[r].hi += bias;
         if (v->ranges[r].lo < hull_lo) hull_lo = v->ranges[r].lo;
         if (v->ranges[r].hi > hull_hi) hull_hi = v->ranges[r].hi;
         if (v->ranges[r].off != 0) {
            if (v->ranges[r].lo < moved_lo) moved_lo = v->ranges[r].lo;
            if (v->ranges[r].hi > moved_hi) moved_hi = v->ranges[r].hi;
         }
      }
   }
   predictor_classes();
   lru_setup();
   d1_sharing();
   data_path_setup();
}

/*------------------------------------------------------------*/
/*--- Shared caches and predictors                         ---*/
/*------------------------------------------------------------*/

/* Variants that provably cannot differ in a structure share one simulation
   of it.

   Branch predictors: the conditional predictor indexes its counters with 7
   address bits (and the global history, the same in every variant), the
   indirect one its table with 9; two variants whose maps differ by a
   multiple of 128 (512) at every address index them identically at every
   branch, so they predict identically.  Each class is simulated once, by
   its first variant.

   D1: a variant's D1 is the base's while every data access so far lay where
   the variant's map moves bytes by a multiple of the D1's sets x line size
   (so the set is the same) and line-aligned ranges move whole lines (so one
   base block is one variant block): the map is then a set-preserving,
   one-to-one renaming of the blocks the base's D1 holds, and LRU's hits and
   misses do not depend on names.  Such a variant misses in D1 exactly when
   the base does; only then does it go to its own LL.  An access anywhere
   else (a range moved by another amount, an unaligned moved range, bytes of
   the executable no range covers -- counted as unmapped there -- or an
   access whose two lines move differently) ends the sharing for that
   variant first: its D1 becomes a copy of the base's with each block
   renamed by its map, and it is simulated on its own from then on. */
static Int *bc_rep, *bi_rep, *bc_reps, *bi_reps;
static Int n_bc_reps, n_bi_reps;

static Bool *d1_shared; /* [variant * n_geoms + geometry] */
static Int n_d1_shared;
/* The pairs (variant * n_geoms + geometry, variant > 0) that share the
   base's D1, and those simulated on their own, each in increasing order. */
static Int *shared_pairs, *own_pairs;
static Int n_shared_pairs, n_own_pairs;
typedef struct {
   Range *bad; /* sorted, disjoint: accesses here end the sharing */
   Int n_bad;
} ShareInfo;
static ShareInfo *d1_info; /* [variant * n_geoms + geometry] */
static Range *all_bad;     /* the union of every variant's bad ranges */
static Int n_all_bad;
static Addr bad_lo = ~(Addr)0, bad_hi;

static Long off_of(const Variant *v, Addr a)
{
   const Range *r = range_of(v, a);
   return r ? r->off : 0;
}

/* Do the maps of u and v differ by a multiple of `period` everywhere? */
static Bool congruent(const Variant *u, const Variant *v, Long period)
{
   const Variant *w[2] = {u, v};
   for (Int k = 0; k < 2; k++)
      for (Int r = 0; r < w[k]->n_ranges; r++) {
         Addr pts[2] = {w[k]->ranges[r].lo, w[k]->ranges[r].hi};
         for (Int j = 0; j < 2; j++)
            if (((off_of(u, pts[j]) - off_of(v, pts[j])) & (period - 1)) != 0)
               return False;
      }
   return True;
}

static void predictor_classes(void)
{
   bc_rep = VG_(malloc)("ks.share", n_variants * sizeof(Int));
   bi_rep = VG_(malloc)("ks.share", n_variants * sizeof(Int));
   bc_reps = VG_(malloc)("ks.share", n_variants * sizeof(Int));
   bi_reps = VG_(malloc)("ks.share", n_variants * sizeof(Int));
   n_bc_reps = n_bi_reps = 0;
   for (Int v = 0; v < n_variants; v++) {
      bc_rep[v] = bi_rep[v] = v;
      for (Int k = 0; k < n_bc_reps; k++)
         if (congruent(&variants[bc_reps[k]], &variants[v], 1 << 7)) {
            bc_rep[v] = bc_reps[k];
            break;
         }
      if (bc_rep[v] == v)
         bc_reps[n_bc_reps++] = v;
      for (Int k = 0; k < n_bi_reps; k++)
         if (congruent(&variants[bi_reps[k]], &variants[v], 1 << 9)) {
            bi_rep[v] = bi_reps[k];
            break;
         }
      if (bi_rep[v] == v)
         bi_reps[n_bi_reps++] = v;
   }
}

static void add_bad(ShareInfo *si, Addr lo, Addr hi)
{
   if (lo >= hi)
      return;
   si->bad = VG_(realloc)("ks.share", si->bad, (si->n_bad + 1) * sizeof(Range));
   si->bad[si->n_bad].lo = lo;
   si->bad[si->n_bad].hi = hi;
   si->bad[si->n_bad].off = 0;
   si->n_bad++;
}

/* After resolve_maps: which (variant, geometry) start with the base's D1,
   and where their sharing ends. */
static void d1_sharing(void)
{
   d1_shared = VG_(calloc)("ks.share", (SizeT)n_variants * n_geoms, sizeof(Bool));
   d1_info = VG_(calloc)("ks.share", (SizeT)n_variants * n_geoms, sizeof(ShareInfo));
   shared_pairs = VG_(calloc)("ks.share", (SizeT)n_variants * n_geoms, sizeof(Int));
   own_pairs = VG_(calloc)("ks.share", (SizeT)n_variants * n_geoms, sizeof(Int));
   n_d1_shared = n_shared_pairs = n_own_pairs = 0;
   if (VG_(getenv)("KEEL_SIM_NO_SHARING")) {
      for (Int p = n_geoms; p < n_variants * n_geoms; p++)
         if (!d1_lru_pair[p])
            own_pairs[n_own_pairs++] = p;
      return;
   }
   for (Int v = 1; v < n_variants; v++) {
      const Variant *var = &variants[v];
      for (Int g = 0; g < n_geoms; g++) {
         if (d1_lru_pair[v * n_geoms + g])
            continue; /* a member of a shared-time D1 (below) */
         ShareInfo *si = &d1_info[v * n_geoms + g];
         Long line = g_D1[g].line;
         Long period = (Long)g_D1[g].size / g_D1[g].assoc;
         Addr covered = exe_lo;
         for (Int r = 0; r < var->n_ranges; r++) {
            const Range *rg = &var->ranges[r];
            if (exe_hi && rg->lo > covered && covered < exe_hi)
               add_bad(si, covered, rg->lo < exe_hi ? rg->lo : exe_hi);
            if (rg->hi > covered)
               covered = rg->hi;
            if (rg->off != 0 &&
                ((rg->off & (period - 1)) != 0 || (rg->lo & (line - 1)) != 0 ||
                 (rg->hi & (line - 1)) != 0))
               add_bad(si, rg->lo, rg->hi);
         }
         if (exe_hi && covered < exe_hi)
            add_bad(si, covered, exe_hi);
         VG_(ssort)(si->bad, si->n_bad, sizeof(Range), cmp_range);
         /* Merge (a gap and a bad range may touch). */
         Int n = 0;
         for (Int i = 0; i < si->n_bad; i++) {
            if (n > 0 && si->bad[i].lo <= si->bad[n - 1].hi) {
               if (si->bad[i].hi > si->bad[n - 1].hi)
                  si->bad[n - 1].hi = si->bad[i].hi;
            } else {
               si->bad[n++] = si->bad[i];
            }
         }
         si->n_bad = n;
         d1_shared[v * n_geoms + g] = True;
         n_d1_shared++;
         shared_pairs[n_shared_pairs++] = v * n_geoms + g;
         for (Int i = 0; i < n; i++) {
            all_bad = VG_(realloc)("ks.share", all_bad, (n_all_bad + 1) * sizeof(Range));
            all_bad[n_all_bad++] = si->bad[i];
         }
      }
   }
   VG_(ssort)(all_bad, n_all_bad, sizeof(Range), cmp_range);
   Int n = 0;
   for (Int i = 0; i < n_all_bad; i++) {
      if (n > 0 && all_bad[i].lo <= all_bad[n - 1].hi) {
         if (all_bad[i].hi > all_bad[n - 1].hi)
            all_bad[n - 1].hi = all_bad[i].hi;
      } else {
         all_bad[n++] = all_bad[i];
      }
   }
   n_all_bad = n;
   if (n > 0) {
      bad_lo = all_bad[0].lo;
      bad_hi = all_bad[n - 1].hi;
   }
}

static Bool in_list(const Range *l, Int n, Addr lo, Addr hi)
{
   /* Does [lo, hi) meet any range of the sorted list? */
   Int a = 0, b = n;
   while (a < b) {
      Int mid = (a + b) / 2;
      if (l[mid].hi <= lo)
         a = mid + 1;
      else
         b = mid;
   }
   return a < n && l[a].lo < hi;
}

/* End the sharing of (v, g): the base's D1, each block renamed. */
static void d1_unshare(Int v, Int g)
{
   const Variant *var = &variants[v];
   ShareInfo *si = &d1_info[v * n_geoms + g];
   Cache *from = &sims[g].D1, *to = &sims[v * n_geoms + g].D1;
   UWord n = (from->sets_mask + 1) * (UWord)from->assoc;
   for (UWord i = 0; i < n; i++) {
      UWord t = from->tags[i];
      Addr a = (Addr)t << from->line_bits;
      const Range *r = range_of(var, a);
      if (r && r->off != 0 && !in_list(si->bad, si->n_bad, a, a + 1))
         t = (UWord)((Long)a + r->off) >> from->line_bits;
      to->tags[i] = t;
   }
   d1_shared[v * n_geoms + g] = False;
   n_d1_shared--;
   Int p = v * n_geoms + g, k = 0;
   while (shared_pairs[k] != p)
      k++;
   for (; k + 1 < n_shared_pairs; k++)
      shared_pairs[k] = shared_pairs[k + 1];
   n_shared_pairs--;
   for (k = n_own_pairs; k > 0 && own_pairs[k - 1] > p; k--)
      own_pairs[k] = own_pairs[k - 1];
   own_pairs[k] = p;
   n_own_pairs++;
}

static void d1_check_shared(Addr addr, UWord size)
{
   Addr end = addr + size;
   if (!in_list(all_bad, n_all_bad, addr, end) &&
       (addr >> d_bits_min) == ((end - 1) >> d_bits_min))
      return;
   for (Int v = 1; v < n_variants; v++)
      for (Int g = 0; g < n_geoms; g++) {
         if (!d1_shared[v * n_geoms + g])
            continue;
         ShareInfo *si = &d1_info[v * n_geoms + g];
         if (in_list(si->bad, si->n_bad, addr, end) ||
             off_of(&variants[v], addr) != off_of(&variants[v], end - 1))
            d1_unshare(v, g);
      }
}

/*------------------------------------------------------------*/
/*--- Shared-time LRU                                      ---*/
/*------------------------------------------------------------*/

/* LRU with move-to-front (cachegrind's) evicts, on a miss, the block of the
   set that was accessed least recently.  So a cache's state is its resident
   blocks and each block's last access time; and when every variant sees the
   same accesses, renamed, the last access time of a block is shared: it is
   the last access of the base bytes that map to it.

   A variant whose every range moves by a multiple of a cache's line size
   (a "member" of that cache) maps each base block, within one interval of
   cuts[] (the addresses where some variant's offset changes), to exactly
   one block of its own.  Such a (base block, interval) pair is a Frag; it
   holds its last access time, shared by every variant, and one residency
   bit per member variant.  An access of a Frag costs one mask test when it
   is resident in every member (a hit everywhere, only its time changes);
   each member whose bit is clear takes the miss path: its own set (at its
   own block), a victim by the least last access time of the Frags in its
   ways, the victim's bit cleared and the Frag's set.

   Two Frags may map to the same block in some variant (a base block cut by
   a range boundary where this variant's two offsets agree, or moved bytes
   landing in a block whose other bytes do not move).  Each way keeps the
   block number it holds in its variant, so the miss path finds that block
   under the other Frag: a hit, and the way passes to the Frag accessed now
   (its time is the block's last access).  So the result is exactly the
   per-variant LRU, whatever the map.

   Geometries with equal caches at one level share one such cache: a
   member's misses count for each of them and go to each one's own LL.  The
   LL is per (variant, geometry) as before (it sees each variant's own
   misses), and so are the caches of non-members.  D1: the base variant
   keeps its own D1 (the "Shared caches" sharing renames it) unless every
   other variant is a member.  KEEL_SIM_NO_LRU_SHARING=1 in the client's environment
   turns this off, for comparison. */
typedef struct {
   UWord block; /* base block number */
   Int cut;     /* interval of cuts[] */
   ULong time;  /* last access, in every variant */
   UWord mask[]; /* residency, one bit per variant */
} Frag;

typedef struct {
   Frag *f;   /* the Frag it holds (NULL: empty) */
   UWord blk; /* the block that is, in the way's variant */
} Way;

typedef struct {
   Int line_bits, assoc;
   UWord sets_mask, nsets;
   UWord cap; /* D1: accesses capped at this size */
   Int geoms[KS_MAX_GEOMS], n_g;
   UWord member[KS_MAX_VARIANTS / 64];
   Int n_member;
   Way *ways;  /* [variant][set][way] */
   Long *dl;   /* [cut * n_variants + v]: offset of interval `cut`, blocks */
   Frag **tab; /* open addressing on (block, cut) */
   UWord tab_cap, tab_used;
   Frag **recent; /* [block % KS_RECENT]: a Frag found before, to check first */
} LruCache;

#define KS_RECENT 4096

static Int n_words;
static ULong lru_time;
/* Ways passed between two Frags of one block (the output's `lru` line). */
static ULong lru_passes;
static LruCache lru_i1[KS_MAX_GEOMS], lru_d1[KS_MAX_GEOMS];
static Int n_lru_i1, n_lru_d1;
static Bool *i1_lru_pair; /* [variant * n_geoms + geometry] */
static Int *i1_old_pairs, n_i1_old_pairs; /* the other I1 pairs, in order */
static Bool *d1_lru_variant; /* [variant]: a member of some D1 class */
/* Per I1 class, two Frags (the blocks of the instruction's first and last
   byte; 0: one block), in the words just before an InstrInfo's [0] (the
   same host cache line as its length). */
static UWord ii_lru_words;

/* Cut points (run addresses), sorted: interval k is [cuts[k-1], cuts[k]),
   interval 0 below cuts[0], interval n_cuts at and above the last. */
static Addr *cuts;
static Int n_cuts;
static Long *cut_off;     /* [k * n_variants + v]: the offset, bytes */
static Bool *cut_unmapped; /* [k]: inside exe, and some variant has no range */

static inline Int cut_of(Addr a)
{
   if (n_cuts == 0 || a < cuts[0])
      return 0;
   if (a >= cuts[n_cuts - 1])
      return n_cuts;
   Int lo = 0, hi = n_cuts;
   while (lo < hi) {
      Int mid = (lo + hi) / 2;
      if (cuts[mid] <= a)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo;
}

static Int cmp_addr(const void *a, const void *b)
{
   Addr x = *(const Addr *)a, y = *(const Addr *)b;
   return x < y ? -1 : x > y ? 1 : 0;
}

#define KS_UNMAPPED ((Long)0x7fffffffffffffffLL)

/* Variant v's offset at a, KS_UNMAPPED inside exe where no range covers. */
static Long off_or_unmapped(const Variant *v, Addr a)
{
   if (v->n_ranges == 0)
      return 0;
   const Range *r = range_of(v, a);
   if (r)
      return r->off;
   return exe_hi && a >= exe_lo && a < exe_hi ? KS_UNMAPPED : 0;
}

static void build_cuts(void)
{
   Int cap = 2;
   for (Int v = 1; v < n_variants; v++)
      cap += 2 * variants[v].n_ranges;
   Addr *pts = VG_(malloc)("ks.lru", (SizeT)cap * sizeof(Addr));
   Int n = 0;
   if (exe_hi) {
      pts[n++] = exe_lo;
      pts[n++] = exe_hi;
   }
   for (Int v = 1; v < n_variants; v++)
      for (Int r = 0; r < variants[v].n_ranges; r++) {
         pts[n++] = variants[v].ranges[r].lo;
         pts[n++] = variants[v].ranges[r].hi;
      }
   VG_(ssort)(pts, n, sizeof(Addr), cmp_addr);
   Int u = 0;
   for (Int i = 0; i < n; i++)
      if (u == 0 || pts[i] != pts[u - 1])
         pts[u++] = pts[i];
   /* Values per interval (k = 0 .. u); keep a cut only where they change. */
   Long *val = VG_(malloc)("ks.lru", (SizeT)(u + 1) * n_variants * sizeof(Long));
   for (Int k = 0; k <= u; k++)
      for (Int v = 0; v < n_variants; v++)
         val[(SizeT)k * n_variants + v] =
             k == 0 ? 0 : off_or_unmapped(&variants[v], pts[k - 1]);
   cuts = VG_(malloc)("ks.lru", (SizeT)(u ? u : 1) * sizeof(Addr));
   cut_off = VG_(malloc)("ks.lru", (SizeT)(u + 1) * n_variants * sizeof(Long));
   cut_unmapped = VG_(calloc)("ks.lru", (SizeT)(u + 1), sizeof(Bool));
   Int m = 0; /* intervals kept so far - 1 */
   for (Int v = 0; v < n_variants; v++)
      cut_off[v] = val[v];
   for (Int k = 1; k <= u; k++) {
      const Long *cur = val + (SizeT)k * n_variants;
      const Long *prev = val + (SizeT)(k - 1) * n_variants;
      if (VG_(memcmp)(cur, prev, n_variants * sizeof(Long)) == 0)
         continue;
      cuts[m] = pts[k - 1];
      m++;
      for (Int v = 0; v < n_variants; v++)
         cut_off[(SizeT)m * n_variants + v] = cur[v];
   }
   n_cuts = m;
   for (Int k = 0; k <= n_cuts; k++)
      for (Int v = 0; v < n_variants; v++)
         if (cut_off[(SizeT)k * n_variants + v] == KS_UNMAPPED) {
            cut_off[(SizeT)k * n_variants + v] = 0;
            cut_unmapped[k] = True;
         }
   VG_(free)(val);
   VG_(free)(pts);
}

/* Does every range of v move by a multiple of `line`? */
static Bool moves_whole_lines(const Variant *v, Long line)
{
   for (Int r = 0; r < v->n_ranges; r++)
      if ((v->ranges[r].off & (line - 1)) != 0)
         return False;
   return True;
}

static void lru_init(LruCache *c, Level L, Int first_v)
{
   c->line_bits = VG_(log2)((UInt)L.line);
   c->assoc = L.assoc;
   c->nsets = (UWord)(L.size / L.line / L.assoc);
   c->sets_mask = c->nsets - 1;
   c->n_member = 0;
   for (Int v = first_v; v < n_variants; v++)
      if (moves_whole_lines(&variants[v], L.line)) {
         c->member[v / 64] |= (UWord)1 << (v % 64);
         c->n_member++;
      }
   c->ways = calloc_lines("ks.lru", (SizeT)n_variants * c->nsets * (UWord)c->assoc,
                          sizeof(Way));
   c->dl = VG_(malloc)("ks.lru", (SizeT)(n_cuts + 1) * n_variants * sizeof(Long));
   for (SizeT i = 0; i < (SizeT)(n_cuts + 1) * n_variants; i++)
      c->dl[i] = cut_off[i] / (Long)L.line; /* exact for members */
   c->tab_cap = 1024;
   c->tab_used = 0;
   c->tab = VG_(calloc)("ks.lru", c->tab_cap, sizeof(Frag *));
   c->recent = VG_(calloc)("ks.lru", KS_RECENT, sizeof(Frag *));
}

static inline UWord frag_hash(UWord block, Int cut)
{
   UWord h = (block + (UWord)cut * 0x9E3779B97F4A7C15ULL) * 0xff51afd7ed558ccdULL;
   return h ^ (h >> 29);
}

/* Frags live side by side in large zeroed chunks, in the order they are
   first met (for I1, mostly code order), never freed: the miss path reads
   the time and writes the residency bits of the Frags in a set's ways,
   and dense Frags keep more of them in the host's cache than one
   allocation each. */
static UChar *frag_chunk;
static SizeT frag_chunk_left;

static Frag *frag_alloc(void)
{
   SizeT sz = sizeof(Frag) + (SizeT)n_words * sizeof(UWord);
   sz = (sz + 7) & ~(SizeT)7;
   if (frag_chunk_left < sz) {
      SizeT bytes = 1 << 20;
      if (bytes < sz)
         bytes = sz;
      frag_chunk = VG_(calloc)("ks.frag", bytes, 1);
      frag_chunk_left = bytes;
   }
   Frag *f = (Frag *)frag_chunk;
   frag_chunk += sz;
   frag_chunk_left -= sz;
   return f;
}

static Frag *frag_get(LruCache *c, UWord block, Int cut)
{
   UWord j = frag_hash(block, cut) & (c->tab_cap - 1);
   for (Frag *f; (f = c->tab[j]) != NULL; j = (j + 1) & (c->tab_cap - 1))
      if (f->block == block && f->cut == cut)
         return f;
   if (2 * (c->tab_used + 1) > c->tab_cap) {
      UWord cap = 2 * c->tab_cap;
      Frag **t = VG_(calloc)("ks.lru", cap, sizeof(Frag *));
      for (UWord i = 0; i < c->tab_cap; i++)
         if (c->tab[i]) {
            UWord k = frag_hash(c->tab[i]->block, c->tab[i]->cut) & (cap - 1);
            while (t[k])
               k = (k + 1) & (cap - 1);
            t[k] = c->tab[i];
         }
      VG_(free)(c->tab);
      c->tab = t;
      c->tab_cap = cap;
      j = frag_hash(block, cut) & (cap - 1);
      while (c->tab[j])
         j = (j + 1) & (cap - 1);
   }
   Frag *f = frag_alloc();
   f->block = block;
   f->cut = cut;
   c->tab[j] = f;
   c->tab_used++;
   return f;
}

/* frag_get, with a direct-mapped memory of the Frags found before. */
static inline Frag *frag_at(LruCache *c, UWord block, Int cut)
{
   Frag **slot = &c->recent[block & (KS_RECENT - 1)];
   Frag *f = *slot;
   if (f && f->block == block && f->cut == cut)
      return f;
   return *slot = frag_get(c, block, cut);
}

/* The interval of a data address: blocks (of the smallest D1 line) that lie
   inside one interval are remembered, direct-mapped. */
static UWord dc_block[KS_RECENT];
static Int dc_cut[KS_RECENT];

static inline Int data_cut(Addr a)
{
   UWord b = a >> d_bits_min, i = b & (KS_RECENT - 1);
   if (dc_block[i] == b)
      return dc_cut[i];
   Int k = cut_of(a);
   Addr lo = (Addr)b << d_bits_min, hi = lo + ((Addr)1 << d_bits_min) - 1;
   if (cut_of(lo) == k && cut_of(hi) == k) {
      dc_block[i] = b;
      dc_cut[i] = k;
   }
   return k;
}

/* The members in `m` (bits of word w) do not hold f as resident: each looks
   in its own set, finds its block there under another Frag (a hit) or
   evicts the least recently accessed way.  Returns the bits that missed. */
static UWord lru_slow(LruCache *c, Frag *f, Int w, UWord m)
{
   UWord missed = 0;
   /* Each variant's set is elsewhere in memory: ask for all of them first,
      so their cache misses overlap. */
   for (UWord p = m; p; p &= p - 1) {
      Int v = w * 64 + __builtin_ctzl(p);
      UWord blk = f->block + (UWord)c->dl[(SizeT)f->cut * n_variants + v];
      __builtin_prefetch(c->ways + ((SizeT)v * c->nsets + (blk & c->sets_mask)) *
                                       (UWord)c->assoc);
   }
   while (m) {
      Int b = __builtin_ctzl(m);
      UWord bit = (UWord)1 << b;
      m &= m - 1;
      Int v = w * 64 + b;
      UWord blk = f->block + (UWord)c->dl[(SizeT)f->cut * n_variants + v];
      SizeT at = ((SizeT)v * c->nsets + (blk & c->sets_mask)) * (UWord)c->assoc;
      Way *ways = c->ways + at;
      Int victim = 0;
      ULong best = ~0ULL;
      Bool hit = False;
      if (c->assoc == 2) {
         /* The loop below for two ways, without a branch on which way is
            older (a coin toss the host mispredicts half the time). */
         Frag *g0 = ways[0].f, *g1 = ways[1].f;
         if (g0 && ways[0].blk == blk) {
            victim = 0;
            hit = True;
         } else if (g1 && ways[1].blk == blk) {
            victim = 1;
            hit = True;
         } else if (!g0) {
            victim = 0;
         } else if (!g1) {
            victim = 1;
         } else {
            victim = g1->time < g0->time;
         }
      } else
      for (Int i = 0; i < c->assoc; i++) {
         Frag *g = ways[i].f;
         if (!g) {
            if (best != 0) {
               best = 0;
               victim = i;
            }
            continue;
         }
         if (ways[i].blk == blk) {
            victim = i;
            hit = True;
            break;
         }
         if (g->time < best) {
            best = g->time;
            victim = i;
         }
      }
      if (hit)
         lru_passes++;
      if (ways[victim].f)
         ways[victim].f->mask[w] &= ~bit;
      ways[victim].f = f;
      ways[victim].blk = blk;
      f->mask[w] |= bit;
      if (!hit)
         missed |= bit;
   }
   return missed;
}

/* Ask for the LL set of block(s) at a in c's memory (see lru_slow). */
static inline void prefetch_set(const Cache *c, Addr a)
{
   __builtin_prefetch(c->tags + ((a >> c->line_bits) & c->sets_mask) * (UWord)c->assoc);
}

/* One block of one access: `miss` gets the members that missed. */
static inline void lru_line(LruCache *c, Frag *f, UWord *miss)
{
   for (Int w = 0; w < n_words; w++) {
      UWord m = c->member[w] & ~f->mask[w];
      if (m)
         miss[w] |= lru_slow(c, f, w, m);
   }
   f->time = ++lru_time;
}

static Bool same_level(Level a, Level b)
{
   return a.size == b.size && a.assoc == b.assoc && a.line == b.line;
}

static void lru_setup(void)
{
   n_words = (n_variants + 63) / 64;
   i1_lru_pair = VG_(calloc)("ks.lru", (SizeT)n_variants * n_geoms, sizeof(Bool));
   d1_lru_pair = VG_(calloc)("ks.lru", (SizeT)n_variants * n_geoms, sizeof(Bool));
   d1_lru_variant = VG_(calloc)("ks.lru", (SizeT)n_variants, sizeof(Bool));
   i1_old_pairs = VG_(malloc)("ks.lru", (SizeT)n_variants * n_geoms * sizeof(Int));
   n_lru_i1 = n_lru_d1 = 0;
   Bool on = n_variants >= 2 && !VG_(getenv)("KEEL_SIM_NO_LRU_SHARING");
   if (on) {
      build_cuts();
      for (Int g = 0; g < n_geoms; g++) {
         Int c;
         for (c = 0; c < n_lru_i1; c++)
            if (same_level(g_I1[lru_i1[c].geoms[0]], g_I1[g]))
               break;
         if (c == n_lru_i1)
            lru_init(&lru_i1[n_lru_i1++], g_I1[g], 0);
         lru_i1[c].geoms[lru_i1[c].n_g++] = g;
         for (c = 0; c < n_lru_d1; c++)
            if (same_level(g_D1[lru_d1[c].geoms[0]], g_D1[g]) &&
                g_min_line[lru_d1[c].geoms[0]] == g_min_line[g])
               break;
         if (c == n_lru_d1) {
            /* The base too when every other variant is a member: then no
               variant shares the base's own D1 ("Shared caches"). */
            Int first = 0;
            for (Int v = 1; v < n_variants; v++)
               if (!moves_whole_lines(&variants[v], g_D1[g].line))
                  first = 1;
            lru_init(&lru_d1[n_lru_d1], g_D1[g], first);
            lru_d1[n_lru_d1++].cap = g_min_line[g];
         }
         lru_d1[c].geoms[lru_d1[c].n_g++] = g;
      }
      for (Int c = 0; c < n_lru_i1; c++)
         for (Int k = 0; k < lru_i1[c].n_g; k++)
            for (Int v = 0; v < n_variants; v++)
               if (lru_i1[c].member[v / 64] & ((UWord)1 << (v % 64)))
                  i1_lru_pair[v * n_geoms + lru_i1[c].geoms[k]] = True;
      for (Int c = 0; c < n_lru_d1; c++)
         for (Int k = 0; k < lru_d1[c].n_g; k++)
            for (Int v = 0; v < n_variants; v++)
               if (lru_d1[c].member[v / 64] & ((UWord)1 << (v % 64))) {
                  d1_lru_pair[v * n_geoms + lru_d1[c].geoms[k]] = True;
                  d1_lru_variant[v] = True;
               }
   }
   for (Int i = 0; i < KS_RECENT; i++)
      dc_block[i] = ~(UWord)0;
   n_i1_old_pairs = 0;
   for (Int p = 0; p < n_variants * n_geoms; p++)
      if (!i1_lru_pair[p])
         i1_old_pairs[n_i1_old_pairs++] = p;
   ii_lru_words = 2 * (UWord)n_lru_i1;
}

static void data_path_setup(void)
{
   all_d1_lru = n_lru_d1 > 0 && n_own_pairs == 0 && n_shared_pairs == 0 &&
                n_d1_shared == 0;
   for (Int g = 0; g < n_geoms; g++)
      if (!d1_lru_pair[g])
         all_d1_lru = False;
}

/* Count the accesses of the D1 members that no range covers (map_addr does
   it for the others). */
static void lru_count_unmapped(Addr a)
{
   for (Int v = 1; v < n_variants; v++)
      if (d1_lru_variant[v])
         (void)map_addr(&variants[v], a);
}

/*------------------------------------------------------------*/
/*--- Run-time helpers                                     ---*/
/*------------------------------------------------------------*/

/* Per instruction, built at translation: [0] = length, [1 + v] = the
   instruction's address in variant v. */
typedef UWord InstrInfo;

static VG_REGPARM(1) void ks_ir(InstrInfo *ii)
{
   UWord len = ii[0];
   n_Ir++;
   if (ks_fe_on)
      ks_fe_fetch(ii);
   const UWord *fr = ii - ii_lru_words;
   for (Int c = 0; c < n_lru_i1; c++) {
      LruCache *lc = &lru_i1[c];
      Frag *f1 = (Frag *)fr[2 * c], *f2 = (Frag *)fr[2 * c + 1];
      /* Resident in every member: a hit everywhere, only the time moves. */
      if (n_words == 1 && (lc->member[0] & ~f1->mask[0]) == 0 &&
          (!f2 || (lc->member[0] & ~f2->mask[0]) == 0)) {
         f1->time = ++lru_time;
         if (f2)
            f2->time = ++lru_time;
         continue;
      }
      UWord miss[KS_MAX_VARIANTS / 64];
      for (Int w = 0; w < n_words; w++)
         miss[w] = 0;
      lru_line(lc, f1, miss);
      if (f2)
         lru_line(lc, f2, miss);
      /* Each variant's address: the base's plus its offset there (what
         fill_instr put in ii[1 + v], read from one row for the interval). */
      const Long *off = cut_off + (SizeT)f1->cut * n_variants;
      for (Int w = 0; w < n_words; w++)
         for (UWord m = miss[w]; m; m &= m - 1) {
            Int v = w * 64 + __builtin_ctzl(m);
            for (Int k = 0; k < lc->n_g; k++)
               prefetch_set(&sims[v * n_geoms + lc->geoms[k]].LL,
                            (Addr)((Long)ii[1] + off[v]));
         }
      for (Int w = 0; w < n_words; w++)
         for (UWord m = miss[w]; m; m &= m - 1) {
            Int v = w * 64 + __builtin_ctzl(m);
            Addr a = (Addr)((Long)ii[1] + off[v]);
            for (Int k = 0; k < lc->n_g; k++) {
               Sim *s = &sims[v * n_geoms + lc->geoms[k]];
               s->I1mr++;
               if (access_misses(&s->LL, a, len))
                  s->ILmr++;
            }
         }
   }
   for (Int k = 0; k < n_i1_old_pairs; k++) {
      Int p = i1_old_pairs[k];
      Sim *s = &sims[p];
      Addr a = ii[1 + p / n_geoms];
      if (access_misses(&s->I1, a, len)) {
         s->I1mr++;
         if (access_misses(&s->LL, a, len))
            s->ILmr++;
      }
   }
}

/* The data access just before this one touched, last, block `last_d_block`
   (in lines of the smallest D1 line size of all geometries) at an address no
   variant moves.  Every D1 of every variant and geometry saw that access and
   nothing else since, so the block is the most recent of its set there: an
   access within that one block hits everywhere and changes nothing.  Checked
   once instead of once per simulated cache. */
static UWord last_d_block = ~(UWord)0;

static inline Bool d_repeats(Addr addr, UWord size)
{
   UWord b1 = addr >> d_bits_min, b2 = (addr + size - 1) >> d_bits_min;
   Bool moved = addr >= moved_lo && addr < moved_hi;
   if (b1 == b2 && b1 == last_d_block && !moved && size <= min_line_all)
      return True;
   last_d_block = moved || size > min_line_all ? ~(UWord)0 : b2;
   return False;
}

/* One data access of every variant and geometry: D1, then LL on a miss.
   A (variant, geometry) whose D1 is shared with the base's (see "Shared
   caches") is not looked up: it misses exactly when the base's D1 misses,
   and only then goes to its own LL at its own address.  The base first;
   then the pairs on their own, in variant order; then, on a base miss, the
   sharing pairs. */
/* A D1 miss of one (variant, geometry): counted, and looked up in its LL. */
static inline void d1_missed(Sim *s, Addr a, UWord sz, Bool write)
{
   if (write) {
      s->D1mw++;
      if (access_misses(&s->LL, a, sz))
         s->DLmw++;
   } else {
      s->D1mr++;
      if (access_misses(&s->LL, a, sz))
         s->DLmr++;
   }
}

static inline void one_access(Sim *s, Addr a, UWord sz, Bool write)
{
   if (access_misses(&s->D1, a, sz))
      d1_missed(s, a, sz, write);
}

/* The shared-time D1 classes' part of a data access. */
static inline void lru_data_access(Addr addr, UWord size, Bool write)
{
   Int k = data_cut(addr);
   if (cut_unmapped[k])
      lru_count_unmapped(addr);
   for (Int c = 0; c < n_lru_d1; c++) {
      LruCache *lc = &lru_d1[c];
      UWord csz = size > lc->cap ? lc->cap : size;
      UWord b1 = addr >> lc->line_bits, b2 = (addr + csz - 1) >> lc->line_bits;
      UWord miss[KS_MAX_VARIANTS / 64];
      for (Int w = 0; w < n_words; w++)
         miss[w] = 0;
      lru_line(lc, frag_at(lc, b1, k), miss);
      if (b2 != b1)
         lru_line(lc, frag_at(lc, b2, k), miss);
      for (Int w = 0; w < n_words; w++)
         for (UWord m = miss[w]; m; m &= m - 1) {
            Int v = w * 64 + __builtin_ctzl(m);
            Addr va = (Addr)((Long)addr + cut_off[(SizeT)k * n_variants + v]);
            for (Int j = 0; j < lc->n_g; j++)
               prefetch_set(&sims[v * n_geoms + lc->geoms[j]].LL, va);
         }
      for (Int w = 0; w < n_words; w++)
         for (UWord m = miss[w]; m; m &= m - 1) {
            Int v = w * 64 + __builtin_ctzl(m);
            Addr va = (Addr)((Long)addr + cut_off[(SizeT)k * n_variants + v]);
            for (Int j = 0; j < lc->n_g; j++)
               d1_missed(&sims[v * n_geoms + lc->geoms[j]], va, csz, write);
         }
   }
}

static inline void data_access(Addr addr, UWord size, Bool write)
{
   if (all_d1_lru) {
      lru_data_access(addr, size, write);
      return;
   }
   if (n_d1_shared &&
       ((addr + size > bad_lo && addr < bad_hi) ||
        (addr >> d_bits_min) != ((addr + size - 1) >> d_bits_min)))
      d1_check_shared(addr, size);
   Bool any_miss = False;
   Bool base_miss[KS_MAX_GEOMS];
   for (Int g = 0; g < n_geoms; g++) {
      Sim *s = &sims[g];
      base_miss[g] = False;
      if (d1_lru_pair[g])
         continue; /* the base is a member of a shared-time D1 */
      UWord sz = size > g_min_line[g] ? g_min_line[g] : size;
      base_miss[g] = access_misses(&s->D1, addr, sz);
      if (base_miss[g]) {
         any_miss = True;
         d1_missed(s, addr, sz, write);
      }
   }
   UWord sz[KS_MAX_GEOMS];
   for (Int g = 0; g < n_geoms; g++)
      sz[g] = size > g_min_line[g] ? g_min_line[g] : size;
   Int last_v = -1;
   Addr a = addr;
   if (n_own_pairs == (n_variants - 1) * n_geoms) {
      /* Nothing shared: every variant, every geometry. */
      Sim *s = sims + n_geoms;
      for (Int v = 1; v < n_variants; v++) {
         a = map_addr(&variants[v], addr);
         for (Int g = 0; g < n_geoms; g++, s++)
            one_access(s, a, sz[g], write);
      }
   } else {
      for (Int k = 0; k < n_own_pairs; k++) {
         Int p = own_pairs[k], v = p / n_geoms;
         if (v != last_v) {
            a = map_addr(&variants[v], addr);
            last_v = v;
         }
         one_access(&sims[p], a, sz[p - v * n_geoms], write);
      }
   }
   if (n_lru_d1)
      lru_data_access(addr, size, write);
   if (!any_miss)
      return;
   last_v = -1;
   for (Int k = 0; k < n_shared_pairs; k++) {
      Int p = shared_pairs[k], v = p / n_geoms, g = p - v * n_geoms;
      if (!base_miss[g])
         continue;
      if (v != last_v) {
         a = map_addr(&variants[v], addr);
         last_v = v;
      }
      d1_missed(&sims[p], a, sz[g], write);
   }
}

static VG_REGPARM(3) void ks_dr(InstrInfo *ii, Addr addr, UWord size)
{
   (void)ii;
   n_Dr++;
   if (ks_fe_on)
      ks_fe_data(addr, size, False);
   if (d_repeats(addr, size))
      return;
   data_access(addr, size, False);
}

static VG_REGPARM(3) void ks_dw(InstrInfo *ii, Addr addr, UWord size)
{
   (void)ii;
   n_Dw++;
   if (ks_fe_on)
      ks_fe_data(addr, size, True);
   if (d_repeats(addr, size))
      return;
   data_access(addr, size, True);
}

static VG_REGPARM(2) void ks_bc(InstrInfo *ii, UWord taken)
{
   n_Bc++;
   if (ks_fe_on)
      ks_fe_cond(ii, taken);
   for (Int k = 0; k < n_bc_reps; k++) {
      Int v = bc_reps[k];
      Variant *var = &variants[v];
      UWord idx = ((var->history & 0x7f) << 7) | (ii[1 + v] & 0x7f);
      UChar c = var->counters[idx];
      Bool predicted = c >= 2;
      if (predicted != (taken != 0))
         var->Bcm++;
      var->history = (var->history << 1) | (taken ? 1 : 0);
      if (taken) {
         if (c < 3) var->counters[idx] = c + 1;
      } else {
         if (c > 0) var->counters[idx] = c - 1;
      }
   }
}

/* The target is compared as the base binary's address: a map is one-to-one,
   so two targets differ in a variant exactly when they differ in the base. */
static VG_REGPARM(2) void ks_bi(InstrInfo *ii, Addr dst)
{
   n_Bi++;
   if (ks_fe_on)
      ks_fe_ind(ii, dst);
   for (Int k = 0; k < n_bi_reps; k++) {
      Int v = bi_reps[k];
      Variant *var = &variants[v];
      UWord idx = ii[1 + v] & 0x1ff;
      if (var->btac[idx] != dst)
         var->Bim++;
      var->btac[idx] = dst;
   }
}

/*------------------------------------------------------------*/
/*--- Executed instructions per function, and processes   ---*/
/*------------------------------------------------------------*/

/* --keel-sim-fn-ir=yes: Ir per function name, as cachegrind's fn= lines sum
   it (VG_(get_fnname) at translation, "???" where there is none).  The
   instructions of a superblock are counted where its queued helpers run
   (count_later), not one by one. */
typedef struct {
   HChar *name;
   ULong ir;
} FnCount;

static FnCount **fn_table; /* open addressing; entries never move */
static UWord fn_cap, fn_used;

static UWord fn_hash(const HChar *s)
{
   UWord h = 5381;
   for (; *s; s++)
      h = h * 33 + (UChar)*s;
   return h;
}

static ULong *fn_counter(Addr a)
{
   const HChar *name;
   if (!VG_(get_fnname)(VG_(current_DiEpoch)(), a, &name))
      name = "???";
   if (2 * (fn_used + 1) > fn_cap) {
      UWord cap = fn_cap ? 2 * fn_cap : 1024;
      FnCount **t = VG_(calloc)("ks.fn", cap, sizeof(FnCount *));
      for (UWord i = 0; i < fn_cap; i++)
         if (fn_table[i]) {
            UWord j = fn_hash(fn_table[i]->name) & (cap - 1);
            while (t[j])
               j = (j + 1) & (cap - 1);
            t[j] = fn_table[i];
         }
      if (fn_table)
         VG_(free)(fn_table);
      fn_table = t;
      fn_cap = cap;
   }
   UWord j = fn_hash(name) & (fn_cap - 1);
   while (fn_table[j]) {
      if (VG_(strcmp)(fn_table[j]->name, name) == 0)
         return &fn_table[j]->ir;
      j = (j + 1) & (fn_cap - 1);
   }
   FnCount *f = VG_(malloc)("ks.fn", sizeof(FnCount));
   f->name = VG_(strdup)("ks.fn", name);
   f->ir = 0;
   fn_table[j] = f;
   fn_used++;
   return &f->ir;
}

/* A program that forks or execs is more than the one process this run
   simulates: the results say so (`process forks N execs N`), and a child
   writes nothing (it shares the parent's output file). */
static ULong n_forks, n_execs;
static Bool is_child;

static void ks_atfork_parent(ThreadId tid)
{
   (void)tid;
   n_forks++;
}

static void ks_atfork_child(ThreadId tid)
{
   (void)tid;
   is_child = True;
}

static void write_results(void);

/* An execve that succeeds replaces the process without running ks_fini
   (valgrind does not follow it: --trace-children=no), so the results so far
   are written first, marked. */
static void ks_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs)
{
   (void)tid; (void)args; (void)nArgs;
   if (sysno == __NR_execve || sysno == __NR_execveat) {
      n_execs++;
      if (!is_child)
         write_results();
   }
}

static void ks_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs,
                            SysRes res)
{
   (void)tid; (void)sysno; (void)args; (void)nArgs; (void)res;
}

/* Add n to *counter, inline. */
static void add_count(IRSB *out, ULong *counter, ULong n)
{
   IRTemp t1 = newIRTemp(out->tyenv, Ity_I64);
   IRTemp t2 = newIRTemp(out->tyenv, Ity_I64);
   IRExpr *where = mkIRExpr_HWord((HWord)counter);
   addStmtToIRSB(out, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, where)));
   addStmtToIRSB(out, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
                                                    IRExpr_Const(IRConst_U64(n)))));
   addStmtToIRSB(out, IRStmt_Store(Iend_LE, where, IRExpr_RdTmp(t2)));
}

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

/* Events wait in a short queue so a store can merge with the load just
   before it (a modify); the queue is emitted, in order, before every side
   exit, when full, before a guarded access, after a load-linked, and at the
   end of the block -- the same points cachegrind emits its own. */
typedef enum { Ev_Ir, Ev_Dr, Ev_Dw, Ev_Dm, Ev_Bc, Ev_Bi, Ev_Fe } EvTag;

typedef struct {
   EvTag tag;
   InstrInfo *ii;
   IRExpr *ea; /* Dr/Dw/Dm: address; Bc: taken (host word); Bi: target */
   Int size;
} Event;

#define N_EVENTS 16

/* Counters added inline (executed instructions per function, and the
   instructions counted without a helper call), summed between two flushes
   and added at the flush: the same points where the queued events' helpers
   run, so a counter has counted exactly the instructions whose events ran,
   with one add per counter instead of one per instruction. */
typedef struct {
   ULong *counter;
   ULong n;
} PendingCount;

typedef struct {
   Event ev[N_EVENTS];
   Int used;
   Int flushes; /* flush calls so far */
   IRSB *out;
   PendingCount *pend; /* one per instruction of the block at most, + 1 */
   Int n_pend;
} State;

static void emit(State *st, const HChar *name, void *fn, Int regparms,
                 IRExpr **args, IRExpr *guard)
{
   IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn),
                                   args);
   if (guard)
      di->guard = guard;
   addStmtToIRSB(st->out, IRStmt_Dirty(di));
}

/* A fetch only the front-end model needs (Ev_Fe) and the event next to it
   in the queue go in one helper call, in their order: the events of a
   queue run together (or not at all), so this is the same sequence of
   model and cache updates with one call less. */
static VG_REGPARM(2) void ks_fe_ir(InstrInfo *fe, InstrInfo *ii)
{
   ks_fe_fetch(fe);
   ks_ir(ii);
}

static VG_REGPARM(2) void ks_ir_fe(InstrInfo *ii, InstrInfo *fe)
{
   ks_ir(ii);
   ks_fe_fetch(fe);
}

static VG_REGPARM(2) void ks_fe_fe(InstrInfo *fe1, InstrInfo *fe2)
{
   ks_fe_fetch(fe1);
   ks_fe_fetch(fe2);
}

static VG_REGPARM(3) void ks_fe_dr(InstrInfo *fe, Addr addr, UWord size)
{
   ks_fe_fetch(fe);
   ks_dr(fe, addr, size);
}

static VG_REGPARM(3) void ks_fe_dw(InstrInfo *fe, Addr addr, UWord size)
{
   ks_fe_fetch(fe);
   ks_dw(fe, addr, size);
}

static void ks_dr_fe(InstrInfo *fe, Addr addr, UWord size)
{
   ks_dr(fe, addr, size);
   ks_fe_fetch(fe);
}

static void ks_dw_fe(InstrInfo *fe, Addr addr, UWord size)
{
   ks_dw(fe, addr, size);
   ks_fe_fetch(fe);
}

static void ks_fe_bc(InstrInfo *fe, InstrInfo *ii, UWord taken)
{
   ks_fe_fetch(fe);
   ks_bc(ii, taken);
}

static void ks_fe_bi(InstrInfo *fe, InstrInfo *ii, Addr dst)
{
   ks_fe_fetch(fe);
   ks_bi(ii, dst);
}

/* Emits E and the Ev_Fe event next to it (F, after E when AFTER) as one
   call; False when the pair has no combined helper. */
static Bool emit_pair(State *st, Event *e, Event *f, Bool after)
{
   IRExpr *ii = mkIRExpr_HWord((HWord)e->ii);
   IRExpr *fe = mkIRExpr_HWord((HWord)f->ii);
   switch (e->tag) {
   case Ev_Ir:
      if (after)
         emit(st, "ks_ir_fe", &ks_ir_fe, 2, mkIRExprVec_2(ii, fe), NULL);
      else
         emit(st, "ks_fe_ir", &ks_fe_ir, 2, mkIRExprVec_2(fe, ii), NULL);
      return True;
   case Ev_Fe:
      emit(st, "ks_fe_fe", &ks_fe_fe, 2,
           after ? mkIRExprVec_2(ii, fe) : mkIRExprVec_2(fe, ii), NULL);
      return True;
   case Ev_Dr:
   case Ev_Dm:
   case Ev_Dw: {
      /* ks_dr and ks_dw do not read their record: the fetch's goes. */
      IRExpr **args = mkIRExprVec_3(fe, e->ea, mkIRExpr_HWord((HWord)e->size));
      if (e->tag == Ev_Dw) {
         if (after)
            emit(st, "ks_dw_fe", &ks_dw_fe, 3, args, NULL);
         else
            emit(st, "ks_fe_dw", &ks_fe_dw, 3, args, NULL);
      } else {
         if (after)
            emit(st, "ks_dr_fe", &ks_dr_fe, 3, args, NULL);
         else
            emit(st, "ks_fe_dr", &ks_fe_dr, 3, args, NULL);
      }
      return True;
   }
   case Ev_Bc:
      if (after)
         return False;
      emit(st, "ks_fe_bc", &ks_fe_bc, 3, mkIRExprVec_3(fe, ii, e->ea), NULL);
      return True;
   case Ev_Bi:
      if (after)
         return False;
      emit(st, "ks_fe_bi", &ks_fe_bi, 3, mkIRExprVec_3(fe, ii, e->ea), NULL);
      return True;
   }
   return False;
}

static void flush(State *st)
{
   for (Int i = 0; i < st->used; i++) {
      Event *e = &st->ev[i];
      IRExpr *ii = mkIRExpr_HWord((HWord)e->ii);
      if (i + 1 < st->used) {
         Event *n = &st->ev[i + 1];
         if ((e->tag == Ev_Fe && emit_pair(st, n, e, False)) ||
             (n->tag == Ev_Fe && emit_pair(st, e, n, True))) {
            i++;
            continue;
         }
      }
      switch (e->tag) {
      case Ev_Ir:
         emit(st, "ks_ir", &ks_ir, 1, mkIRExprVec_1(ii), NULL);
         break;
      case Ev_Fe: /* a fetch only the front-end model needs */
         emit(st, "ks_fe_fetch", &ks_fe_fetch, 1, mkIRExprVec_1(ii), NULL);
         break;
      case Ev_Dr:
      case Ev_Dm:
         emit(st, "ks_dr", &ks_dr, 3,
              mkIRExprVec_3(ii, e->ea, mkIRExpr_HWord((HWord)e->size)), NULL);
         break;
      case Ev_Dw:
         emit(st, "ks_dw", &ks_dw, 3,
              mkIRExprVec_3(ii, e->ea, mkIRExpr_HWord((HWord)e->size)), NULL);
         break;
      case Ev_Bc:
         emit(st, "ks_bc", &ks_bc, 2, mkIRExprVec_2(ii, e->ea), NULL);
         break;
      case Ev_Bi:
         emit(st, "ks_bi", &ks_bi, 2, mkIRExprVec_2(ii, e->ea), NULL);
         break;
      }
   }
   st->used = 0;
   st->flushes++;
   for (Int k = 0; k < st->n_pend; k++)
      add_count(st->out, st->pend[k].counter, st->pend[k].n);
   st->n_pend = 0;
}

/* Count one instruction in `counter` at the next flush. */
static void count_later(State *st, ULong *counter)
{
   for (Int k = 0; k < st->n_pend; k++)
      if (st->pend[k].counter == counter) {
         st->pend[k].n++;
         return;
      }
   st->pend[st->n_pend].counter = counter;
   st->pend[st->n_pend].n = 1;
   st->n_pend++;
}

static Event *new_event(State *st, EvTag tag, InstrInfo *ii, IRExpr *ea,
                        Int size)
{
   if (st->used == N_EVENTS)
      flush(st);
   Event *e = &st->ev[st->used++];
   e->tag = tag;
   e->ii = ii;
   e->ea = ea;
   e->size = size;
   return e;
}

static void add_dr(State *st, InstrInfo *ii, Int size, IRExpr *ea)
{
   tl_assert(isIRAtom(ea));
   new_event(st, Ev_Dr, ii, ea, size);
}

static void add_dw(State *st, InstrInfo *ii, Int size, IRExpr *ea)
{
   tl_assert(isIRAtom(ea));
   if (st->used > 0) {
      Event *last = &st->ev[st->used - 1];
      if (last->tag == Ev_Dr && last->size == size && last->ii == ii &&
          eqIRAtom(last->ea, ea)) {
         last->tag = Ev_Dm;
         return;
      }
   }
   new_event(st, Ev_Dw, ii, ea, size);
}

static void add_guarded(State *st, InstrInfo *ii, Int size, IRExpr *ea,
                        IRExpr *guard, Bool write)
{
   tl_assert(isIRAtom(ea) && isIRAtom(guard));
   flush(st);
   IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)ii), ea,
                                 mkIRExpr_HWord((HWord)size));
   if (write)
      emit(st, "ks_dw", &ks_dw, 3, args, guard);
   else
      emit(st, "ks_dr", &ks_dr, 3, args, guard);
}

static Int capped(Int size)
{
   return size > (Int)min_line_all ? (Int)min_line_all : size;
}

/* Where instruction `a` (a run address) lives in each variant. */
static void fill_instr(InstrInfo *ii, Addr a, UInt len)
{
   ii[0] = len;
   for (Int v = 0; v < n_variants; v++)
      ii[1 + v] = map_addr(&variants[v], a);
   if (n_lru_i1) {
      Int k = cut_of(a);
      for (Int c = 0; c < n_lru_i1; c++) {
         LruCache *lc = &lru_i1[c];
         UWord b1 = a >> lc->line_bits, b2 = (a + len - 1) >> lc->line_bits;
         ii[2 * c - (Long)ii_lru_words] = (UWord)frag_get(lc, b1, k);
         ii[2 * c + 1 - (Long)ii_lru_words] =
             b2 != b1 ? (UWord)frag_get(lc, b2, k) : 0;
      }
   }
}

/* Within a superblock, an instruction runs right after the one before it,
   and only data accesses (which never touch I1) come between.  When, in
   every variant, the instruction lies inside the last line the previous one
   was fetched from (in lines of the smallest I1 line size, so inside it for
   every geometry), that line is the most recent of its I1 set in every
   simulated cache: the fetch hits and changes nothing, so only Ir counts. */
static Bool fetch_repeats(const InstrInfo *prev, const InstrInfo *cur)
{
   for (Int v = 0; v < n_variants; v++) {
      Addr pa = prev[1 + v], ca = cur[1 + v];
      UWord last = (pa + prev[0] - 1) >> i_bits_min;
      if ((ca >> i_bits_min) != last || ((ca + cur[0] - 1) >> i_bits_min) != last)
         return False;
   }
   return True;
}

/* The kernel's 16 random bytes (auxv AT_RANDOM) seed the stack guard, and
   they sit on the stack right after the last environment string, where
   ld.so's strcspn, reading four bytes at a time, looks them up in its
   table: a run's data addresses (and so D1, LL and 4K-alias counts) varied
   with them, by one event in a few runs. The first block the program runs
   (ld.so's entry, where the stack pointer is at argc) overwrites them with
   fixed bytes, so one command always counts the same. */
static Bool random_fixed;

static void ks_fix_random(void)
{
   const UWord *sp = (const UWord *)VG_(get_SP)(VG_(get_running_tid)());
   const UWord *p = sp + 1 + sp[0] + 1; /* argc, argv..., NULL */
   while (*p)
      p++;                              /* envp..., NULL */
   for (p++; p[0] != 0 /* AT_NULL */; p += 2) {
      if (p[0] == 25 /* AT_RANDOM */ && p[1]) {
         UChar *r = (UChar *)p[1];
         for (Int k = 0; k < 16; k++)
            r[k] = (UChar)(0x5a + 13 * k);
         return;
      }
   }
}

/* One superblock being instrumented: the output and its queued events, the
   block's instruction records, and the instruction whose statements are
   being read. */
typedef struct {
   State st;
   IRTypeEnv *tyenv;    /* the input block's */
   IRType hWordTy;
   InstrInfo *infos;    /* one record of `stride` words per instruction */
   UWord stride;
   Int n_instrs, next_info;
   InstrInfo *cur;      /* the current instruction's record */
   InstrInfo *fe_head;  /* the first record of the queued front-end hook */
   Int fe_head_flushes; /* st.flushes when fe_head's event was queued */
   Addr cia;            /* the current instruction's address and size */
   UInt isize;
} Superblock;

/* Set up `b` for block `in`: an empty output block, the instruction records
   (they live as long as the tool: a discarded block's few words are not
   worth tracking) and room for the pending counts. */
static void start_block(Superblock *b, IRSB *in, IRType hWordTy)
{
   b->st.used = 0;
   b->st.flushes = 0;
   b->st.out = deepCopyIRSBExceptStmts(in);
   b->tyenv = in->tyenv;
   b->hWordTy = hWordTy;
   b->n_instrs = 0;
   for (Int k = 0; k < in->stmts_used; k++)
      if (in->stmts[k]->tag == Ist_IMark)
         b->n_instrs++;
   b->stride = 1 + (UWord)n_variants + (ks_fe_on ? ks_fe_extra_words() : 0) +
               2 * (UWord)n_lru_i1;
   b->infos = VG_(malloc)("ks.instr", (b->n_instrs ? b->n_instrs : 1) *
                                         b->stride * sizeof(UWord));
   b->st.pend =
      VG_(malloc)("ks.pend", ((SizeT)b->n_instrs + 2) * sizeof(PendingCount));
   b->st.n_pend = 0;
   b->next_info = 0;
   b->cur = NULL;
   b->fe_head = NULL;
   b->fe_head_flushes = -1;
   b->cia = 0;
   b->isize = 0;
}

/* Copy the statements before the first instruction as they are; the very
   first block also fixes the AT_RANDOM bytes (ks_fix_random). The index of
   the first IMark. */
static Int copy_preamble(Superblock *b, IRSB *in)
{
   Int i = 0;
   while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark) {
      addStmtToIRSB(b->st.out, in->stmts[i]);
      i++;
   }
   tl_assert(i < in->stmts_used);
   if (!random_fixed) {
      random_fixed = True;
      IRDirty *d = unsafeIRDirty_0_N(0, "ks_fix_random",
                                     VG_(fnptr_to_fnentry)(&ks_fix_random),
                                     mkIRExprVec_0());
      addStmtToIRSB(b->st.out, IRStmt_Dirty(d));
   }
   return i;
}

/* The fetch of the current instruction, after `prev` (NULL for the
   block's first): counted only when it repeats the last I1 line, else an
   Ir event; with the front-end model, joined to the queued hook of its run
   where that is allowed. */
static void queue_fetch(Superblock *b, InstrInfo *prev)
{
   State *st = &b->st;
   InstrInfo *cur = b->cur;
   if (prev && fetch_repeats(prev, cur)) {
      if (ks_fe_on) {
         if (ks_fe_may_skip(prev, cur) ||
             (b->fe_head_flushes == st->flushes &&
              ks_fe_may_join(b->fe_head, prev, cur))) {
            ks_fe_extend(b->fe_head, cur);
         } else {
            b->fe_head = cur;
            new_event(st, Ev_Fe, cur, NULL, (Int)b->isize);
            b->fe_head_flushes = st->flushes;
         }
      }
      /* Counted, not simulated: an I1 hit everywhere (see there). */
      count_later(st, &n_Ir);
   } else if (ks_fe_on && prev && b->fe_head_flushes == st->flushes &&
              st->used < N_EVENTS && ks_fe_may_join(b->fe_head, prev, cur)) {
      /* A new I1 line, its fetch windows joined to the queued hook
         of its run (queued here with no flush between). */
      ks_fe_extend(b->fe_head, cur);
      ks_fe_mark_joined(cur);
      new_event(st, Ev_Ir, cur, NULL, (Int)b->isize);
   } else {
      b->fe_head = cur;
      new_event(st, Ev_Ir, cur, NULL, (Int)b->isize);
      b->fe_head_flushes = st->flushes;
   }
}

/* An IMark: the next instruction's record, its function count, the
   front-end model's view of a call VEX followed, and its fetch. */
static void on_imark(Superblock *b, IRStmt *s)
{
   b->cia = s->Ist.IMark.addr;
   b->isize = s->Ist.IMark.len;
   if (b->isize == 0)
      b->isize = VG_MIN_INSTR_SZB;
   tl_assert(b->next_info < b->n_instrs);
   InstrInfo *prev = b->cur;
   b->cur = b->infos + (UWord)b->next_info * b->stride + ii_lru_words;
   b->next_info++;
   fill_instr(b->cur, b->cia, b->isize);
   if (clo_fn_ir)
      count_later(&b->st, fn_counter(b->cia));
   if (ks_fe_on) {
      ks_fe_fill(b->cur);
      /* A call VEX followed into its callee inside this block. */
      if (prev && b->cia != prev[1] + prev[0] && ks_fe_is_call(prev[1])) {
         flush(&b->st);
         emit(&b->st, "ks_fe_callret", &ks_fe_callret, 3,
              mkIRExprVec_3(mkIRExpr_HWord((HWord)prev),
                            mkIRExpr_HWord(b->cia), mkIRExpr_HWord(0)),
              NULL);
      }
   }
   queue_fetch(b, prev);
}

/* A dirty helper's memory effect: a read, a write, or both. */
static void on_dirty(Superblock *b, IRDirty *d)
{
   if (d->mFx == Ifx_None)
      return;
   tl_assert(d->mAddr != NULL && d->mSize != 0);
   Int size = capped(d->mSize);
   if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
      add_dr(&b->st, b->cur, size, d->mAddr);
   if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
      add_dw(&b->st, b->cur, size, d->mAddr);
}

/* A compare-and-swap: a read and a write of its (double) size. */
static void on_cas(Superblock *b, IRCAS *cas)
{
   Int size = sizeofIRType(typeOfIRExpr(b->tyenv, cas->dataLo));
   if (cas->dataHi != NULL)
      size *= 2;
   size = capped(size);
   add_dr(&b->st, b->cur, size, cas->addr);
   add_dw(&b->st, b->cur, size, cas->addr);
}

/* Load-linked (a read, then a flush) or store-conditional (a write). */
static void on_llsc(Superblock *b, IRStmt *s)
{
   if (s->Ist.LLSC.storedata == NULL) {
      add_dr(&b->st, b->cur,
             sizeofIRType(typeOfIRTemp(b->tyenv, s->Ist.LLSC.result)),
             s->Ist.LLSC.addr);
      flush(&b->st);
   } else {
      add_dw(&b->st, b->cur,
             sizeofIRType(typeOfIRExpr(b->tyenv, s->Ist.LLSC.storedata)),
             s->Ist.LLSC.addr);
   }
}

/* A side exit: a conditional branch event for boring jumps, calls and
   returns, then a flush (the events so far run before the exit). */
static void on_side_exit(Superblock *b, IRStmt *s)
{
   IRJumpKind jk = s->Ist.Exit.jk;
   if (jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret) {
      /* Taken = the guard, unless the optimiser inverted the exit so
         that it goes to the next instruction. */
      IRSB *out = b->st.out;
      IRType tyW = b->hWordTy;
      IRTemp g1 = newIRTemp(out->tyenv, Ity_I1);
      IRTemp gW = newIRTemp(out->tyenv, tyW);
      IRTemp g = newIRTemp(out->tyenv, tyW);
      tl_assert(tyW == Ity_I64 && s->Ist.Exit.dst->tag == Ico_U64);
      Addr sea = s->Ist.Exit.dst->Ico.U64;
      Bool inverted = b->cia + b->isize == sea;
      if (ks_fe_on && sea == b->cia)
         ks_fe_mark_self_loop(b->cur);
      addStmtToIRSB(out, IRStmt_WrTmp(g1, s->Ist.Exit.guard));
      addStmtToIRSB(out, IRStmt_WrTmp(gW, IRExpr_Unop(Iop_1Uto64,
                                                      IRExpr_RdTmp(g1))));
      addStmtToIRSB(
          out,
          IRStmt_WrTmp(g, inverted ? IRExpr_Binop(Iop_Xor64,
                                                  IRExpr_RdTmp(gW),
                                                  IRExpr_Const(IRConst_U64(1)))
                                   : IRExpr_RdTmp(gW)));
      new_event(&b->st, Ev_Bc, b->cur, IRExpr_RdTmp(g), 0);
   }
   flush(&b->st);
}

/* The events (and IR) statement `s` adds before it is copied. */
static void instrument_stmt(Superblock *b, IRStmt *s)
{
   tl_assert(isFlatIRStmt(s));
   switch (s->tag) {
   case Ist_NoOp:
   case Ist_AbiHint:
   case Ist_Put:
   case Ist_PutI:
   case Ist_MBE:
      break;
   case Ist_IMark:
      on_imark(b, s);
      break;
   case Ist_WrTmp: {
      IRExpr *data = s->Ist.WrTmp.data;
      if (data->tag == Iex_Load)
         add_dr(&b->st, b->cur, sizeofIRType(data->Iex.Load.ty),
                data->Iex.Load.addr);
      break;
   }
   case Ist_Store:
      add_dw(&b->st, b->cur,
             sizeofIRType(typeOfIRExpr(b->tyenv, s->Ist.Store.data)),
             s->Ist.Store.addr);
      break;
   case Ist_StoreG: {
      IRStoreG *sg = s->Ist.StoreG.details;
      add_guarded(&b->st, b->cur,
                  sizeofIRType(typeOfIRExpr(b->tyenv, sg->data)), sg->addr,
                  sg->guard, True);
      break;
   }
   case Ist_LoadG: {
      IRLoadG *lg = s->Ist.LoadG.details;
      IRType ty = Ity_INVALID, wide = Ity_INVALID;
      typeOfIRLoadGOp(lg->cvt, &wide, &ty);
      tl_assert(ty != Ity_INVALID);
      add_guarded(&b->st, b->cur, sizeofIRType(ty), lg->addr, lg->guard,
                  False);
      break;
   }
   case Ist_Dirty:
      on_dirty(b, s->Ist.Dirty.details);
      break;
   case Ist_CAS:
      on_cas(b, s->Ist.CAS.details);
      break;
   case Ist_LLSC:
      on_llsc(b, s);
      break;
   case Ist_Exit:
      on_side_exit(b, s);
      break;
   default:
      ppIRStmt(s);
      tl_assert(0);
   }
}

/* The block's end: an indirect jump or call (returns are assumed
   predicted), the last flush, and the front-end model's return stack
   (calls and returns at block ends). */
static void end_block(Superblock *b, IRSB *in)
{
   State *st = &b->st;
   if (in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call) {
      if (in->next->tag == Iex_RdTmp)
         new_event(st, Ev_Bi, b->cur, in->next, 0);
      else
         tl_assert(in->next->tag == Iex_Const);
   }
   flush(st);
   if (ks_fe_on && (in->jumpkind == Ijk_Call || in->jumpkind == Ijk_Ret))
      emit(st, "ks_fe_callret", &ks_fe_callret, 3,
           mkIRExprVec_3(mkIRExpr_HWord((HWord)b->cur), in->next,
                         mkIRExpr_HWord(in->jumpkind == Ijk_Ret)),
           NULL);
   tl_assert(b->next_info == b->n_instrs && st->n_pend == 0);
   VG_(free)(st->pend);
}

/* Instrument one superblock, as cachegrind's cg_instrument does: walk its
   flat statements, queue an event for each instruction fetch, data access
   and branch, and emit the queued helper calls at each flush. */
static IRSB *ks_instrument(VgCallbackClosure *closure, IRSB *in,
                           const VexGuestLayout *layout,
                           const VexGuestExtents *vge,
                           const VexArchInfo *archinfo_host, IRType gWordTy,
                           IRType hWordTy)
{
   (void)closure; (void)layout; (void)vge; (void)archinfo_host;
   if (gWordTy != hWordTy)
      VG_(tool_panic)("host/guest word size mismatch");
   if (!maps_resolved)
      resolve_maps();

   Superblock b;
   start_block(&b, in, hWordTy);
   for (Int i = copy_preamble(&b, in); i < in->stmts_used; i++) {
      instrument_stmt(&b, in->stmts[i]);
      addStmtToIRSB(b.st.out, in->stmts[i]);
   }
   end_block(&b, in);
   return b.st.out;
}

/*------------------------------------------------------------*/
/*--- Setup and results                                    ---*/
/*------------------------------------------------------------*/

static void ks_post_clo_init(void)
{
   if (n_clo_I1 == 0 || n_clo_D1 == 0 || n_clo_LL == 0) {
      VG_(fmsg)("keel-sim: give every level: --I1=... --D1=... --LL=... "
                "(no host detection, so results never depend on the machine)\n");
      VG_(exit)(2);
   }
   n_geoms = n_clo_I1;
   if (n_clo_D1 > n_geoms) n_geoms = n_clo_D1;
   if (n_clo_LL > n_geoms) n_geoms = n_clo_LL;
   if ((n_clo_I1 != 1 && n_clo_I1 != n_geoms) ||
       (n_clo_D1 != 1 && n_clo_D1 != n_geoms) ||
       (n_clo_LL != 1 && n_clo_LL != n_geoms)) {
      VG_(fmsg)("keel-sim: each of --I1/--D1/--LL is given once or once per "
                "geometry (%d)\n", n_geoms);
      VG_(exit)(2);
   }
   Int largest = VG_(machine_get_size_of_largest_guest_register)();
   min_line_all = ~(UWord)0;
   for (Int g = 0; g < n_geoms; g++) {
      g_I1[g] = clo_I1[n_clo_I1 == 1 ? 0 : g];
      g_D1[g] = clo_D1[n_clo_D1 == 1 ? 0 : g];
      g_LL[g] = clo_LL[n_clo_LL == 1 ? 0 : g];
      UWord m = (UWord)g_I1[g].line;
      if ((UWord)g_D1[g].line < m) m = (UWord)g_D1[g].line;
      if ((UWord)g_LL[g].line < m) m = (UWord)g_LL[g].line;
      g_min_line[g] = m;
      if (VG_(log2)((UInt)g_D1[g].line) < d_bits_min)
         d_bits_min = VG_(log2)((UInt)g_D1[g].line);
      if (VG_(log2)((UInt)g_I1[g].line) < i_bits_min)
         i_bits_min = VG_(log2)((UInt)g_I1[g].line);
      if (m < min_line_all) min_line_all = m;
      if ((Int)m < largest) {
         VG_(fmsg)("keel-sim: the smallest line size (%d) is below the largest "
                   "register (%d)\n", (Int)m, largest);
         VG_(exit)(2);
      }
   }

   variants = VG_(calloc)("ks.variants", KS_MAX_VARIANTS, sizeof(Variant));
   add_variant("base", 4);
   if (clo_map_file)
      read_map_file();
   if (ks_fe_on)
      ks_fe_init(n_variants, map_addr_quiet);
   sims = VG_(calloc)("ks.sims", (SizeT)n_variants * n_geoms, sizeof(Sim));
   for (Int v = 0; v < n_variants; v++)
      for (Int g = 0; g < n_geoms; g++) {
         Sim *s = &sims[v * n_geoms + g];
         cache_init(&s->I1, g_I1[g]);
         cache_init(&s->D1, g_D1[g]);
         cache_init(&s->LL, g_LL[g]);
      }
}

static void ks_fini(Int exitcode)
{
   (void)exitcode;
   if (!is_child)
      write_results();
}

static void write_results(void)
{
   HChar *path = VG_(expand_file_name)("--keel-sim-out-file", clo_out_file);
   /* A regular file (or a new one) is written whole to PATH.tmp, then
      renamed: a reader never sees half.  Anything else (/dev/null, a pipe)
      is written in place: renaming over it would replace the device (and
      /dev/stdout is a link to one: stat follows it). */
   struct vg_stat sb;
   SysRes sr = VG_(stat)(path, &sb);
   Bool in_place = (!sr_isError(sr) && !VKI_S_ISREG(sb.mode)) ||
                   VG_(strncmp)(path, "/dev/", 5) == 0 ||
                   VG_(strncmp)(path, "/proc/", 6) == 0;
   SizeT n = VG_(strlen)(path);
   HChar *tmp = VG_(malloc)("ks.out", n + 5);
   VG_(strcpy)(tmp, path);
   if (!in_place)
      VG_(strcat)(tmp, ".tmp");
   VgFile *fp = VG_(fopen)(tmp, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
                           VKI_S_IRUSR | VKI_S_IWUSR);
   if (!fp) {
      VG_(umsg)("keel-sim: cannot write %s\n", tmp);
      return;
   }
   VG_(fprintf)(fp, "keel-sim 1\n");
   for (Int g = 0; g < n_geoms; g++)
      VG_(fprintf)(fp, "geometry %d I1=%d,%d,%d D1=%d,%d,%d LL=%d,%d,%d\n", g,
                   g_I1[g].size, g_I1[g].assoc, g_I1[g].line, g_D1[g].size,
                   g_D1[g].assoc, g_D1[g].line, g_LL[g].size, g_LL[g].assoc,
                   g_LL[g].line);
   for (Int v = 0; v < n_variants; v++)
      VG_(fprintf)(fp, "variant %d %s unmapped %llu\n", v, variants[v].name,
                   variants[v].unmapped);
   VG_(fprintf)(fp, "process forks %llu execs %llu\n", n_forks, n_execs);
   /* How much was shared (docs/keel-sim.md, "Shared caches"): (variant,
      geometry) pairs still on the base's D1, predictor classes.  The
      front-end model's state is never shared: one per variant. */
   VG_(fprintf)(fp, "sharing d1 %d of %d bc-classes %d bi-classes %d\n",
                n_d1_shared, (n_variants - 1) * n_geoms, n_bc_reps, n_bi_reps);
   /* The shared-time LRU ("Shared-time LRU"): the (variant, geometry)
      pairs it simulates, the cut points (those not on a line boundary of
      the smallest line: blocks two offsets share), the ways passed. */
   {
      Int n_i1 = 0, n_d1 = 0, n_unaligned = 0;
      for (Int p = 0; i1_lru_pair && p < n_variants * n_geoms; p++) {
         n_i1 += i1_lru_pair[p];
         n_d1 += d1_lru_pair[p];
      }
      for (Int k = 0; k < n_cuts; k++)
         n_unaligned += (cuts[k] & (min_line_all - 1)) != 0;
      VG_(fprintf)(fp, "lru i1 %d d1 %d cuts %d unaligned %d passes %llu\n",
                   n_i1, n_d1, n_cuts, n_unaligned, lru_passes);
   }
   VG_(fprintf)(fp, "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim%s\n",
                ks_fe_on ? ks_fe_event_names() : "");
   for (Int v = 0; v < n_variants; v++)
      for (Int g = 0; g < n_geoms; g++) {
         Sim *s = &sims[v * n_geoms + g];
         VG_(fprintf)(fp,
                      "result %d %d %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                      "%llu %llu %llu %llu",
                      v, g, n_Ir, s->I1mr, s->ILmr, n_Dr, s->D1mr, s->DLmr, n_Dw,
                      s->D1mw, s->DLmw, n_Bc,
                      variants[bc_rep ? bc_rep[v] : v].Bcm, n_Bi,
                      variants[bi_rep ? bi_rep[v] : v].Bim);
         if (ks_fe_on)
            ks_fe_print(fp, v);
         VG_(fprintf)(fp, "\n");
      }
   if (clo_fn_ir)
      for (UWord i = 0; i < fn_cap; i++)
         if (fn_table[i] && fn_table[i]->ir)
            VG_(fprintf)(fp, "fn %llu %s\n", fn_table[i]->ir, fn_table[i]->name);
   VG_(fclose)(fp);
   if (!in_place && VG_(rename)(tmp, path) != 0)
      VG_(umsg)("keel-sim: cannot rename %s to %s\n", tmp, path);
}

static void ks_pre_clo_init(void)
{
   VG_(details_name)("keel-sim");
   VG_(details_version)(NULL);
#ifdef KS_TAGE_LONG
   VG_(details_description)("Keel's layout simulator (cachegrind's caches, "
                            "many layouts per run; the longer-history TAGE "
                            "variant)");
#else
   VG_(details_description)("Keel's layout simulator (cachegrind's caches, "
                            "many layouts per run)");
#endif
   VG_(details_copyright_author)("Keel project");
   VG_(details_bug_reports_to)("the Keel project");
   VG_(details_avg_translation_sizeB)(500);
   /* As cachegrind: the same IR, hence the same events. */
   VG_(clo_vex_control).iropt_register_updates_default =
       VG_(clo_px_file_backed) = VexRegUpdSpAtMemAccess;
   VG_(basic_tool_funcs)(ks_post_clo_init, ks_instrument, ks_fini);
   VG_(needs_command_line_options)(ks_process_cmd_line_option, ks_print_usage,
                                   ks_print_debug_usage);
   VG_(needs_syscall_wrapper)(ks_pre_syscall, ks_post_syscall);
   VG_(atfork)(NULL, ks_atfork_parent, ks_atfork_child);
}

VG_DETERMINE_INTERFACE_VERSION(ks_pre_clo_init)
